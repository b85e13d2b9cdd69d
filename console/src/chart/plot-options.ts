// uPlot options for a chart: one scale and y-axis per unit (label = the unit), a line per
// series, and for aggregates a min-max band behind the average line. The column layout must
// match alignColumns' (value, then min and max when banded).
import type uPlot from 'uplot';
import type { SeriesColumnIndex } from './columns.ts';

export interface PlottedSeries { name: string; unit: string }

/** Distinguishable in light and dark themes (each at least 3:1 against both backgrounds). */
const SERIES_COLORS = ['#2f6fdf', '#d9480f', '#2b8a3e', '#9c36b5', '#c2255c', '#0b7285'];
const BAND_ALPHA = '33';

export function seriesColor(seriesIndex: number): string {
  return SERIES_COLORS[seriesIndex % SERIES_COLORS.length]!;
}

function unitScaleKey(unit: string): string {
  return `unit:${unit}`;
}

export interface PlotOptionsInput {
  series: PlottedSeries[];
  index: SeriesColumnIndex[];
  width: number;
  height: number;
  textColor: string;
  gridColor: string;
  /** The visible range, read at every redraw so the x scale shows exactly it. */
  xRange: () => [number, number];
  hooks: uPlot.Hooks.Arrays;
}

export function plotOptions(input: PlotOptionsInput): uPlot.Options {
  const units = [...new Set(input.series.map((one) => one.unit))];
  const scales: uPlot.Scales = { x: { time: true, range: () => input.xRange() } };
  for (const unit of units) scales[unitScaleKey(unit)] = { auto: true };
  const series: uPlot.Series[] = [{ label: 'Time' }];
  const bands: uPlot.Band[] = [];
  input.series.forEach((one, seriesIndex) => {
    const columns = input.index[seriesIndex]!;
    const color = seriesColor(seriesIndex);
    const scale = unitScaleKey(one.unit);
    series.push({ label: one.name, scale, stroke: color, width: 1.5, spanGaps: true, points: { show: false } });
    if (columns.min !== null && columns.max !== null) {
      series.push({ label: `${one.name} min`, scale, stroke: color, width: 0, spanGaps: true, points: { show: false } });
      series.push({ label: `${one.name} max`, scale, stroke: color, width: 0, spanGaps: true, points: { show: false } });
      bands.push({ series: [columns.max, columns.min], fill: `${color}${BAND_ALPHA}` });
    }
  });
  const axes: uPlot.Axis[] = [{ stroke: input.textColor, grid: { stroke: input.gridColor, width: 1 }, ticks: { stroke: input.gridColor } }];
  units.forEach((unit, unitIndex) => axes.push({
    scale: unitScaleKey(unit),
    label: unit || 'no unit',
    side: unitIndex % 2 === 0 ? 3 : 1,
    stroke: input.textColor,
    grid: { show: unitIndex === 0, stroke: input.gridColor, width: 1 },
    ticks: { stroke: input.gridColor },
  }));
  return {
    width: input.width,
    height: input.height,
    ms: 1,
    scales,
    series,
    bands,
    axes,
    cursor: { drag: { x: true, y: false, setScale: false } },
    legend: { live: true },
    hooks: input.hooks,
  };
}
