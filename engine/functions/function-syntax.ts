// The expressions a function write carries, checked before anything is stored: at most
// FUNCTION_EXPRESSION_CHARS_MAX characters (a field cap: 422, as the schema says first), then
// the syntax, by the expression language's own parser (expression.ts). Whether the series an
// expression reads exist is left to evaluation: they may be created after the function.
import { BadRequestError, UnprocessableError, type FieldProblem } from '../errors.ts';
import { FUNCTION_EXPRESSION_CHARS_MAX } from '../limits.ts';
import { EventLoopTurns } from '../scheduling/event-loop-turns.ts';
import { parseExpression } from './expression.ts';

/** An expression an item carries: its position in the batch and the field path that holds it. */
export interface ExpressionRef {
  index: number;
  field: string;
  text: string;
}

/**
 * Throws UnprocessableError naming every expression over the cap, else BadRequestError naming
 * every one that does not parse, with the 0-based character `position` the parser stopped at.
 * A batch may carry 4 MiB of expressions: the parsing gives the event loop a turn every slice.
 */
export async function assertExpressionsValid(refs: readonly ExpressionRef[]): Promise<void> {
  const tooLong = refs.filter((ref) => ref.text.length > FUNCTION_EXPRESSION_CHARS_MAX);
  if (tooLong.length > 0) {
    throw new UnprocessableError(`An expression is at most ${FUNCTION_EXPRESSION_CHARS_MAX} characters: ${tooLong.slice(0, 5).map((ref) => `${ref.field} has ${ref.text.length}`).join(', ')}`,
      tooLong.map((ref) => ({ field: ref.field, index: ref.index, message: `at most ${FUNCTION_EXPRESSION_CHARS_MAX} characters; this one has ${ref.text.length}`, limit: FUNCTION_EXPRESSION_CHARS_MAX })));
  }
  const turns = new EventLoopTurns();
  const problems: FieldProblem[] = [];
  for (const ref of refs) {
    const parsed = parseExpression(ref.text);
    if (!parsed.ok) problems.push({ field: ref.field, index: ref.index, message: `${parsed.message} (at character ${parsed.position})`, position: parsed.position });
    await turns.maybe();
  }
  if (problems.length > 0) {
    throw new BadRequestError(`Invalid expression: ${problems.slice(0, 5).map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
  }
}
