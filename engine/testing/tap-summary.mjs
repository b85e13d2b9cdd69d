// Reads tap's raw TAP stream from stdin, echoes it, and ends with the one line `make test`
// promises (CONTRACT): `N passed, N failed, N skipped`, counting leaf assertions (a subtest's
// own summary line is not counted again). A subtest that fails with no failing assertion
// inside (a crash, a timeout) counts as one failure. Before that line it names every failure
// with its test file, since CI keeps only the end of the output. Exits non-zero when anything
// failed or the stream held no assertion at all.
import { createInterface } from 'node:readline';

let passed = 0;
let failed = 0;
let skipped = 0;
let previous = { indent: -1, text: '' };
/** Indentation levels at which a failure was counted since their parent's summary. */
const failedDeeper = new Set();
const skipReasons = [];
/** Failures seen since the last top-level (per-file) line, and those already given a file. */
let pendingFailures = [];
const failures = [];

const rl = createInterface({ input: process.stdin });
/** `ok 3 - name # time=1ms` → `name`. */
function describe(rest) {
  return (rest ?? '').replace(/^\s*\d+\s*-?\s*/, '').replace(/\s*#\s*time=.*$/, '').trim();
}

rl.on('line', (line) => {
  process.stdout.write(`${line}\n`);
  const indent = line.length - line.trimStart().length;
  const match = /^\s*(not ok|ok)\b(.*)$/.exec(line);
  if (match) {
    const isSkip = /#\s*(SKIP|TODO)/i.test(match[2] ?? '');
    const isSubtestSummary = previous.indent > indent && /^1\.\.\d+/.test(previous.text);
    const childFailed = [...failedDeeper].some((level) => level > indent);
    if (isSubtestSummary) {
      if (match[1] === 'not ok' && !isSkip && !childFailed) {
        failed += 1;
        failedDeeper.add(indent);
        if (indent > 0) pendingFailures.push(describe(match[2]));
      }
      for (const level of [...failedDeeper]) if (level > indent) failedDeeper.delete(level);
      if (childFailed) failedDeeper.add(indent);
    } else if (isSkip) {
      skipped += 1;
      skipReasons.push((match[2] ?? '').trim());
    } else if (match[1] === 'ok') {
      passed += 1;
    } else {
      failed += 1;
      failedDeeper.add(indent);
      if (indent > 0) pendingFailures.push(describe(match[2]));
    }
    if (indent === 0) {
      const file = describe(match[2]);
      if (match[1] === 'not ok' && pendingFailures.length === 0) pendingFailures.push('(the file itself)');
      for (const what of pendingFailures) failures.push(`${file}: ${what}`);
      pendingFailures = [];
    }
  }
  const trimmed = line.trim();
  if (trimmed !== '' && !trimmed.startsWith('#')) previous = { indent, text: trimmed };
});
rl.on('close', () => {
  for (const what of pendingFailures) failures.push(what);
  for (const what of failures) process.stdout.write(`failed: ${what}\n`);
  for (const reason of skipReasons) process.stdout.write(`skipped: ${reason}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
});
