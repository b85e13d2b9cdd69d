// Time bounds of data point requests: epoch milliseconds (number or digit string) or an
// ISO-8601 instant with a zone (SPEC: delete bounds accept both). Anything else is refused.
import { BadRequestError } from '../errors.ts';

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Date.parse rolls an impossible day over (2024-02-30 is March 1): refuse it instead. */
function isCalendarDay(year: number, month: number, day: number): boolean {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return month >= 1 && month <= 12 && day >= 1 && day <= last.getUTCDate();
}

export function parseInstant(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string') {
    if (/^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
    const iso = ISO_INSTANT.exec(value);
    if (iso && isCalendarDay(Number(iso[1]), Number(iso[2]), Number(iso[3]))) {
      const ms = Date.parse(value);
      if (Number.isFinite(ms)) return ms;
    }
  }
  throw new BadRequestError(`${field} must be epoch milliseconds or an ISO-8601 instant, got ${JSON.stringify(value)}`, [
    { field, message: 'not ISO-8601 nor epoch ms', value: typeof value === 'object' ? JSON.stringify(value) : (value as string | number) },
  ]);
}
