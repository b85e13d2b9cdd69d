// Goal: the closing lines of `make test` (CONTRACT: `N passed, N failed[, N skipped]`) count
// leaf assertions once, count a subtest that failed with no failing assertion inside (a crash,
// a timeout) as one failure, and name every failure with its test file before the count, since
// CI keeps only the end of the output. Method: tap-summary.mjs is run as `make test` runs it,
// on TAP streams written here in the shape tap 21 prints.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const SUMMARY = fileURLToPath(new URL('./tap-summary.mjs', import.meta.url));

function summarise(stream: string) {
  const run = spawnSync(process.execPath, [SUMMARY], { input: stream, encoding: 'utf8' });
  const lines = run.stdout.trimEnd().split('\n');
  const echoed = stream.trimEnd().split('\n').length;
  return { status: run.status, closing: lines.slice(echoed) };
}

t.test('a green run ends with its counts and exits 0', async (t) => {
  const { status, closing } = summarise(
    [
      'TAP version 14',
      '# Subtest: a.test.ts',
      '    ok 1 - one',
      '    ok 2 - two # SKIP no broker',
      '    1..2',
      'ok 1 - a.test.ts # time=3ms',
      '1..1',
    ].join('\n'),
  );
  t.same(closing, ['skipped: 2 - two # SKIP no broker', '1 passed, 0 failed, 1 skipped']);
  t.equal(status, 0);
});

t.test('every failure is named with its file, a timed-out file once', async (t) => {
  const { status, closing } = summarise(
    [
      'TAP version 14',
      '# Subtest: a.test.ts',
      '    # Subtest: group',
      '        ok 1 - fine',
      '        not ok 2 - broken thing',
      '        1..2',
      '    not ok 1 - group # time=3ms',
      '    1..1',
      'not ok 1 - a.test.ts # time=5ms',
      '# Subtest: b.test.ts',
      '    ok 1 - started',
      '    1..1',
      'not ok 2 - b.test.ts # time=300000ms',
      '1..2',
    ].join('\n'),
  );
  t.same(closing, [
    'failed: a.test.ts: broken thing',
    'failed: b.test.ts: (the file itself)',
    '2 passed, 2 failed',
  ]);
  t.equal(status, 1);
});

t.test('a stream without assertions fails', async (t) => {
  const { status, closing } = summarise('TAP version 14\n1..0\n');
  t.same(closing, ['0 passed, 0 failed']);
  t.equal(status, 1);
});
