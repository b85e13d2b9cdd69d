// Reads tap's raw TAP stream from stdin, echoes it, and ends with the one line `make test`
// promises (CONTRACT): `N passed, N failed, N skipped`, counting leaf assertions (a subtest's
// own summary line is not counted again). A subtest that fails with no failing assertion
// inside (a crash, a timeout) counts as one failure. Exits non-zero when anything failed or
// the stream held no assertion at all.
import { createInterface } from 'node:readline';

let passed = 0;
let failed = 0;
let skipped = 0;
let previous = { indent: -1, text: '' };
/** Indentation levels at which a failure was counted since their parent's summary. */
const failedDeeper = new Set();
const skipReasons = [];

const rl = createInterface({ input: process.stdin });
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
    }
  }
  const trimmed = line.trim();
  if (trimmed !== '' && !trimmed.startsWith('#')) previous = { indent, text: trimmed };
});
rl.on('close', () => {
  for (const reason of skipReasons) process.stdout.write(`skipped: ${reason}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
});
