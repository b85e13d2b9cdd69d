// Time bounds of data point requests: epoch milliseconds (number or digit string) or an
// ISO-8601 instant with a zone (SPEC: delete bounds accept both). Anything else is refused.
import { BadRequestError } from '../errors.ts';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export function parseInstant(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string') {
    if (/^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
    if (ISO_INSTANT.test(value)) {
      const ms = Date.parse(value);
      if (Number.isFinite(ms)) return ms;
    }
  }
  throw new BadRequestError(`${field} must be epoch milliseconds or an ISO-8601 instant, got ${JSON.stringify(value)}`, [
    { field, message: 'not ISO-8601 nor epoch ms', value: typeof value === 'object' ? JSON.stringify(value) : (value as string | number) },
  ]);
}
