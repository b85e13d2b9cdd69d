// The plotted values as a table: the chart's text alternative, one column per series.
import type { SeriesColumns } from '../chart/columns.ts';
import { formatTime } from '../format.ts';

/** Rows rendered at most; the CSV export has them all. */
const TABLE_ROWS_MAX = 2_000;

function valueText(columns: SeriesColumns, row: number): string {
  const value = columns.values[row];
  if (value === null || value === undefined) return '';
  if (!columns.mins) return String(value);
  return `${value} (${columns.mins[row] ?? ''} – ${columns.maxs?.[row] ?? ''})`;
}

export function ChartTable({ names, columns, startMs, endMs }: { names: string[]; columns: SeriesColumns[]; startMs: number; endMs: number }) {
  const cells = new Map<number, string[]>();
  columns.forEach((one, seriesIndex) => one.timesMs.forEach((time, row) => {
    if (time < startMs || time >= endMs) return;
    let cellsAt = cells.get(time);
    if (!cellsAt) cells.set(time, cellsAt = names.map(() => ''));
    cellsAt[seriesIndex] = valueText(one, row);
  }));
  const times = [...cells.keys()].sort((a, b) => a - b);
  const banded = columns.some((one) => one.mins);
  return (
    <div class="table-scroll">
      <table class="data-table" aria-label="Plotted values">
        <thead><tr><th scope="col">Time</th>{names.map((name) => <th scope="col" key={name}>{banded ? `${name} average (min – max)` : name}</th>)}</tr></thead>
        <tbody>
          {times.slice(0, TABLE_ROWS_MAX).map((time) => (
            <tr key={time}><td>{formatTime(time)}</td>{cells.get(time)!.map((text, i) => <td key={i}>{text}</td>)}</tr>
          ))}
        </tbody>
      </table>
      {times.length > TABLE_ROWS_MAX && <p>Showing the first {TABLE_ROWS_MAX} of {times.length} rows; Export CSV has them all.</p>}
      {times.length === 0 && <p>No values in this range.</p>}
    </div>
  );
}
