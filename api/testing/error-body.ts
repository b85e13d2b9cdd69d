// Test helper: asserts SPEC "Errors" bodies: `{ error: { type, code, message, ... } }` with
// the HTTP status as `code`, the names of the wrong inputs in `fields`, and the taken
// externalIds in `duplicated`.
import type { Test } from 'tap';

export interface ExpectedError {
  status: number;
  /** error.type; by default the class SPEC names for the status. */
  type?: string;
  /** `fields[].field`, in any order. */
  fields?: string[];
  /** externalIds listed in `duplicated`, in order. */
  duplicated?: string[];
}

const TYPE_OF_STATUS: Record<number, string> = {
  400: 'BadRequestError', 403: 'ForbiddenError', 404: 'NotFoundError', 409: 'DuplicateError', 422: 'UnprocessableError',
};

export function assertErrorBody(t: Test, res: { status: number; body: unknown }, expected: ExpectedError, name: string): void {
  t.equal(res.status, expected.status, `${name}: status ${expected.status}`);
  const error = (res.body as { error?: Record<string, unknown> } | undefined)?.error;
  t.equal(error?.['type'], expected.type ?? TYPE_OF_STATUS[expected.status], `${name}: error.type`);
  t.equal(error?.['code'], expected.status, `${name}: error.code`);
  t.type(error?.['message'], 'string', `${name}: error.message`);
  if (expected.fields) {
    const fields = (error?.['fields'] as { field: string }[] | undefined)?.map((f) => f.field).sort();
    t.strictSame(fields, [...expected.fields].sort(), `${name}: fields`);
  }
  if (expected.duplicated) {
    t.strictSame(error?.['duplicated'], expected.duplicated.map((externalId) => ({ externalId })), `${name}: duplicated`);
  }
}
