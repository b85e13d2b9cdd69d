// A naming policy's pattern: a JavaScript regular expression the whole value must
// match. A pattern is refused at create and update when it does not compile, or when recheck
// (a ReDoS checker that decides by automata theory, not a star-height heuristic) finds it open
// to catastrophic backtracking or cannot prove it safe within its time budget: a policy runs
// on every create and update of its records, inside their transaction, so one exponential
// pattern would let any write hold a connection for minutes.
import { createRequire } from 'node:module';

/**
 * recheck (a Scala.js bundle) is loaded at the first pattern checked, not at start: importing
 * it was the largest single part of the start's module evaluation (docs/architecture.md,
 * "What the start spends its time on").
 */
let recheck: typeof import('recheck') | undefined;
const loadRecheck = () => (recheck ??= createRequire(import.meta.url)('recheck') as typeof import('recheck'));

/** The compiled form: anchored, so a policy states what the whole value looks like. */
export function compileNamingPattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}

/** Why `pattern` cannot be a policy's, or undefined when it can. */
export function namingPatternProblem(pattern: string): string | undefined {
  let compiled: RegExp;
  try {
    compiled = compileNamingPattern(pattern);
  } catch (error) {
    return `does not compile: ${(error as Error).message}`;
  }
  const verdict = loadRecheck().checkSync(compiled.source, compiled.flags, { timeout: 2_000 });
  if (verdict.status === 'vulnerable') return `is open to catastrophic backtracking (${verdict.complexity.type}${verdict.attack ? `, for example on "${verdict.attack.pattern}"` : ''})`;
  if (verdict.status === 'unknown') return 'could not be shown safe from catastrophic backtracking in time: simplify it';
  return undefined;
}
