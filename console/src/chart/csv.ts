// The visible range of a chart as CSV text: an ISO timestamp column, then the values of each
// series (average, min and max for aggregates). Pure; the chart view makes the download.
import type { SeriesColumns } from './columns.ts';

export interface CsvSeries { name: string; columns: SeriesColumns }

/** RFC 4180 quoting; a header cell a spreadsheet would run as a formula is prefixed with '. */
export function csvCell(text: string, isHeader = false): string {
  const safe = isHeader && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function headerCells(series: CsvSeries[]): string[] {
  const cells = ['timestamp'];
  for (const { name, columns } of series) {
    if (columns.mins) cells.push(`${name} average`, `${name} min`, `${name} max`);
    else cells.push(name);
  }
  return cells.map((cell) => csvCell(cell, true));
}

/** Rows for times in [startMs, endMs), one per distinct time, series side by side. */
export function toCsv(series: CsvSeries[], startMs: number, endMs: number): string {
  const rows = new Map<number, string[]>();
  const width = series.reduce((sum, { columns }) => sum + (columns.mins ? 3 : 1), 0);
  let offset = 0;
  for (const { columns } of series) {
    columns.timesMs.forEach((time, i) => {
      if (time < startMs || time >= endMs) return;
      let row = rows.get(time);
      if (!row) rows.set(time, row = new Array<string>(width).fill(''));
      row[offset] = formatValue(columns.values[i]);
      if (columns.mins) {
        row[offset + 1] = formatValue(columns.mins[i]);
        row[offset + 2] = formatValue(columns.maxs?.[i]);
      }
    });
    offset += columns.mins ? 3 : 1;
  }
  const lines = [headerCells(series).join(',')];
  for (const time of [...rows.keys()].sort((a, b) => a - b)) {
    lines.push([new Date(time).toISOString(), ...rows.get(time)!].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

function formatValue(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

/** A download name from series names: characters file systems refuse become '_'. */
export function csvFileName(names: string[]): string {
  const base = names.join('_').replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').slice(0, 120) || 'series';
  return `${base}.csv`;
}
