// The shape every suite reports in, and the one table the run prints and the report keeps.

export type SystemName = 'plantdata' | 'victoria-metrics' | 'influxdb';

/** One figure of one system: a median (and p99) over runs, or a single whole-run figure. */
export interface Figure {
  value: number;
  p99?: number;
  runCount?: number;
  /** Whether the answers behind the figure were checked and found right. */
  checked?: boolean;
  note?: string;
}

export interface Metric {
  suite: 'metadata' | 'datapoints' | 'graph' | 'events' | 'files' | 'subscriptions' | 'cdf' | 'console' | 'functions' | 'scaleout';
  key: string;
  label: string;
  unit: string;
  /** 'lower' for times, bytes and CPU; 'higher' for rates. */
  better: 'lower' | 'higher';
  /** The target for our figure (bench/README.md): an absolute bound, or a bound on ours / a peer's. */
  target?: Target;
  figures: Partial<Record<SystemName, Figure>>;
}

export interface Target {
  op: '<' | '<=' | '>=';
  value: number;
  /** When set, the bound is on the ratio ours / this peer. */
  peer?: SystemName;
}

export function formatTarget(target: Target, unit: string): string {
  return target.peer ? `${target.op} ${target.value.toFixed(1)}x ${shortName(target.peer)}` : `${target.op} ${target.value} ${unit}`;
}

/** 'met', 'missed by N.NNx' or undefined when a figure it needs is missing. */
export function targetVerdict(metric: Metric): string | undefined {
  const target = metric.target;
  if (!target) return undefined;
  const got = target.peer ? ratio(metric, target.peer) : metric.figures.plantdata?.value;
  if (got === undefined || !Number.isFinite(got)) return undefined;
  const met = target.op === '<' ? got < target.value : target.op === '<=' ? got <= target.value : got >= target.value;
  if (met) return 'met';
  const by = target.op === '>=' ? target.value / got : got / target.value;
  return `missed by ${by.toFixed(2)}x`;
}

export interface SuiteResult {
  suite: Metric['suite'];
  dataset: string;
  metrics: Metric[];
  notes: string[];
}

export interface RunResult {
  startedAt: string;
  size: string;
  suites: SuiteResult[];
}

/** ours / peer, or undefined when either figure is missing. */
export function ratio(metric: Metric, peer: SystemName): number | undefined {
  const ours = metric.figures.plantdata?.value;
  const theirs = metric.figures[peer]?.value;
  if (ours === undefined || theirs === undefined || !Number.isFinite(ours) || !Number.isFinite(theirs) || theirs === 0) return undefined;
  return ours / theirs;
}

export function formatNumber(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export const PEERS: SystemName[] = ['victoria-metrics', 'influxdb'];

/** The table as rows of cells: metric, unit, ours median, ours p99, then peer and ratio pairs. */
export function tableRows(suites: SuiteResult[]): string[][] {
  const peers = PEERS.filter((p) => suites.some((s) => s.metrics.some((m) => m.figures[p])));
  const header = ['metric', 'unit', 'ours', 'ours p99', ...peers.flatMap((p) => [p, `ours/${shortName(p)}`]), 'target', 'checked'];
  const rows = [header];
  for (const suite of suites) {
    for (const m of suite.metrics) {
      const ours = m.figures.plantdata;
      const checked = Object.entries(m.figures).map(([system, f]) => (f?.checked === undefined ? '' : f.checked ? 'ok' : `WRONG(${shortName(system as SystemName)})`)).filter(Boolean);
      rows.push([
        m.label, m.unit, formatNumber(ours?.value), formatNumber(ours?.p99),
        ...peers.flatMap((p) => [formatNumber(m.figures[p]?.value), ratio(m, p) === undefined ? '-' : `${(ratio(m, p) as number).toFixed(2)}x`]),
        m.target ? `${formatTarget(m.target, m.unit)}: ${targetVerdict(m) ?? 'n/a'}` : '', [...new Set(checked)].join(' ') || '-',
      ]);
    }
  }
  return rows;
}

export function shortName(system: SystemName): string {
  return system === 'victoria-metrics' ? 'VM' : system === 'influxdb' ? 'Influx' : 'ours';
}

export function formatTextTable(rows: string[][]): string {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join('  ').trimEnd()).join('\n');
}

export function formatMarkdownTable(rows: string[][]): string {
  const [header, ...body] = rows;
  if (!header) return '';
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
