// Goal: ratios and target verdicts in the table are computed, never typed. Method: metrics with
// known figures; each target kind met, missed (by how much), and without the figure it needs.
import t from 'tap';
import { formatTarget, ratio, tableRows, targetVerdict, type Metric } from './results.ts';

const metric = (target: Metric['target'], ours?: number, vm?: number): Metric => ({
  suite: 'datapoints', key: 'k', label: 'k', unit: 'ms', better: 'lower', ...(target ? { target } : {}),
  figures: { ...(ours !== undefined ? { plantdata: { value: ours } } : {}), ...(vm !== undefined ? { 'victoria-metrics': { value: vm } } : {}) },
});

t.test('target verdicts', async (t) => {
  const check = (m: Metric, expected: string | undefined) => t.equal(targetVerdict(m), expected, `${JSON.stringify(m.target)} ours=${m.figures.plantdata?.value} vm=${m.figures['victoria-metrics']?.value}`);
  check(metric({ op: '<', value: 50 }, 49.9), 'met');
  check(metric({ op: '<', value: 50 }, 100), 'missed by 2.00x');
  check(metric({ op: '<=', value: 0.5, peer: 'victoria-metrics' }, 10, 20), 'met');
  check(metric({ op: '<=', value: 0.5, peer: 'victoria-metrics' }, 20, 20), 'missed by 2.00x');
  check(metric({ op: '>=', value: 1, peer: 'victoria-metrics' }, 3e6, 4e6), 'missed by 1.33x');
  check(metric({ op: '<=', value: 1, peer: 'victoria-metrics' }, 10), undefined);
  check(metric(undefined, 10, 10), undefined);
  t.equal(ratio(metric(undefined, 3, 6), 'victoria-metrics'), 0.5);
  t.equal(formatTarget({ op: '<=', value: 0.2, peer: 'victoria-metrics' }, 'ms'), '<= 0.2x VM');
  t.equal(formatTarget({ op: '<', value: 50 }, 'ms'), '< 50 ms');
});

t.test('table rows', async (t) => {
  const rows = tableRows([{ suite: 'datapoints', dataset: 'd', notes: [], metrics: [metric({ op: '<=', value: 1, peer: 'victoria-metrics' }, 2, 4)] }]);
  t.same(rows[0], ['metric', 'unit', 'ours', 'ours p99', 'victoria-metrics', 'ours/VM', 'target', 'checked']);
  t.same(rows[1], ['k', 'ms', '2.00', '-', '4.00', '0.50x', '<= 1.0x VM: met', '-']);
});
