// The bench's record: each run as one file under bench/history/ (date, commit, machine, then
// per suite the dataset, the table and its notes), bench/RESULTS.md regenerated from those
// files (history.ts), and bench/out/report.html with inline SVG bar charts.
// Every number comes from a run; nobody edits them by hand (STYLE §12).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFileName, runHeading, writeResults } from './history.ts';
import {
  formatMarkdownTable, formatNumber, formatTarget, ratio, shortName, tableRows, targetVerdict,
  type Metric, type RunResult, type SystemName,
} from './results.ts';

export interface Machine {
  cpuModel: string;
  coreCount: number;
  memoryGiB: number;
  node: string;
  kernel: string;
  loadAverage: string;
}

export function describeMachine(): Machine {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // not Linux: os.cpus() is enough
  }
  return {
    cpuModel, coreCount: os.cpus().length, memoryGiB: os.totalmem() / 2 ** 30, node: process.version,
    kernel: `${os.type()} ${os.release()}`, loadAverage: os.loadavg().map((l) => l.toFixed(2)).join(' '),
  };
}

export function gitCommit(cwd: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return 'unknown';
  }
}

/** A run's file under bench/history/: its heading, the machine, then each suite. */
export function runMarkdown(run: RunResult, machine: Machine, commit: string): string {
  const lines = [
    runHeading(run.startedAt, commit, run.size),
    '',
    `Machine: ${machine.cpuModel}, ${machine.coreCount} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM, Node ${machine.node}, ${machine.kernel}; load average at start ${machine.loadAverage} (the machine may be shared).`,
  ];
  for (const suite of run.suites) {
    lines.push('', `### ${suite.suite}`, '', `Dataset: ${suite.dataset}.`, '', formatMarkdownTable(tableRows([suite])));
    const notes = [...suite.notes, ...figureNotes(suite.metrics)];
    if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`));
  }
  return `${lines.join('\n')}\n`;
}

function figureNotes(metrics: Metric[]): string[] {
  const out: string[] = [];
  for (const m of metrics) {
    for (const [system, figure] of Object.entries(m.figures)) {
      if (figure?.note) out.push(`${m.label} (${shortName(system as SystemName)}): ${figure.note}`);
    }
  }
  return out;
}

const SYSTEM_COLORS: Record<SystemName, string> = { plantdata: '#2b6cb0', 'victoria-metrics': '#c05621', influxdb: '#2f855a' };

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** One horizontal bar per system, scaled to the largest figure; p99 as a thin tick. */
export function barChartSvg(metric: Metric): string {
  const entries = Object.entries(metric.figures).filter(([, f]) => f && Number.isFinite(f.value)) as [SystemName, NonNullable<Metric['figures'][SystemName]>][];
  const width = 520;
  const labelWidth = 130;
  const barHeight = 20;
  const height = entries.length * (barHeight + 8) + 28;
  const top = Math.max(...entries.map(([, f]) => Math.max(f.value, f.p99 ?? 0)), 1e-9);
  const scale = (v: number) => ((width - labelWidth - 90) * v) / top;
  const bars = entries.map(([system, f], k) => {
    const y = 24 + k * (barHeight + 8);
    const p99 = f.p99 !== undefined ? `<line x1="${labelWidth + scale(f.p99)}" x2="${labelWidth + scale(f.p99)}" y1="${y}" y2="${y + barHeight}" stroke="#333" stroke-width="2"><title>p99 ${formatNumber(f.p99)}</title></line>` : '';
    return `<text x="0" y="${y + 14}" font-size="12">${escapeHtml(system)}</text>`
      + `<rect x="${labelWidth}" y="${y}" width="${Math.max(1, scale(f.value))}" height="${barHeight}" fill="${SYSTEM_COLORS[system]}"${f.checked === false ? ' fill-opacity="0.35"' : ''}/>`
      + p99
      + `<text x="${labelWidth + scale(Math.max(f.value, f.p99 ?? 0)) + 6}" y="${y + 14}" font-size="12">${formatNumber(f.value)}${f.checked === false ? ' (wrong answer)' : ''}</text>`;
  }).join('');
  const title = `${metric.label} (${metric.unit}, ${metric.better} is better)`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img"><title>${escapeHtml(title)}</title><text x="0" y="14" font-size="13" font-weight="bold">${escapeHtml(title)}</text>${bars}</svg>`;
}

export function htmlReport(run: RunResult, machine: Machine, commit: string): string {
  const sections = run.suites.map((suite) => {
    const rows = tableRows([suite]);
    const table = `<table><thead><tr>${(rows[0] ?? []).map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>${rows.slice(1).map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
    const charts = suite.metrics.filter((m) => Object.keys(m.figures).length > 0).map((m) => `<figure>${barChartSvg(m)}${ratioCaption(m)}</figure>`).join('');
    const notes = [...suite.notes, ...figureNotes(suite.metrics)].map((n) => `<li>${escapeHtml(n)}</li>`).join('');
    return `<h2>${escapeHtml(suite.suite)}</h2><p>${escapeHtml(suite.dataset)}</p>${table}<div class="charts">${charts}</div>${notes ? `<ul>${notes}</ul>` : ''}`;
  }).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>plantdata bench ${escapeHtml(run.startedAt)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0.5em 0}figcaption{font-size:12px;color:#555}</style>
</head><body><h1>plantdata bench</h1>
<p>${escapeHtml(run.startedAt)} · commit ${escapeHtml(commit)} · size ${escapeHtml(run.size)}<br>${escapeHtml(`${machine.cpuModel}, ${machine.coreCount} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM, Node ${machine.node}; load average at start ${machine.loadAverage}`)}</p>
${sections}</body></html>
`;
}

function ratioCaption(metric: Metric): string {
  const parts = (['victoria-metrics', 'influxdb'] as SystemName[]).map((p) => [p, ratio(metric, p)] as const).filter(([, r]) => r !== undefined)
    .map(([p, r]) => `ours/${shortName(p)} ${(r as number).toFixed(2)}x`);
  if (metric.target) parts.push(`target ${formatTarget(metric.target, metric.unit)}: ${targetVerdict(metric) ?? 'n/a'}`);
  return parts.length ? `<figcaption>${escapeHtml(parts.join(' · '))}</figcaption>` : '';
}

/**
 * Records a run: its file under `historyDir` and RESULTS.md regenerated from every file there
 * (both skipped when `resultsFile` is undefined), and the HTML report.
 */
export function writeReport(run: RunResult, opts: { resultsFile?: string; historyDir?: string; htmlFile: string; repoRoot: string; machine?: Machine }): { section: string; runFile?: string } {
  const machine = opts.machine ?? describeMachine();
  const commit = gitCommit(opts.repoRoot);
  const section = runMarkdown(run, machine, commit);
  let runFile: string | undefined;
  if (opts.resultsFile) {
    const historyDir = opts.historyDir ?? path.join(path.dirname(opts.resultsFile), 'history');
    mkdirSync(historyDir, { recursive: true });
    runFile = path.join(historyDir, runFileName(run.startedAt, commit));
    writeFileSync(runFile, section);
    writeResults(historyDir, opts.resultsFile);
  }
  mkdirSync(path.dirname(opts.htmlFile), { recursive: true });
  writeFileSync(opts.htmlFile, htmlReport(run, machine, commit));
  return { section, ...(runFile ? { runFile } : {}) };
}
