// The chart: one or several series over a visible range, each unit on its own axis, zoomed and
// panned by drag, wheel, touch, buttons and keys; the range read at the granularity it calls
// for; Live over the listen WebSocket; event marks; the table view and CSV export.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { apiPost, errorMessage } from '../api.ts';
import { currentToken } from '../auth.ts';
import { alignColumns, pointCount, type SeriesColumns } from '../chart/columns.ts';
import { csvFileName, toCsv } from '../chart/csv.ts';
import { attachGestures } from '../chart/gestures.ts';
import type { Granularity } from '../chart/granularity.ts';
import { appendLivePoints } from '../chart/live-buffer.ts';
import { openLiveStream } from '../chart/live-socket.ts';
import { loadRange, type LoadedRange } from '../chart/load.ts';
import { plotOptions } from '../chart/plot-options.ts';
import { PAN_FRACTION, ZOOM_STEP, followNow, panRange, rangeFromParams, zoomRange, type TimeRange } from '../chart/range.ts';
import { saveBlob } from '../download.ts';
import { displayName } from '../format.ts';
import { routeHash } from '../router.ts';
import type { Page, PlantEvent, TimeSeries } from '../types.ts';
import { useApi } from '../use-api.ts';
import { ApiErrorAlert, Loading } from './api-error.tsx';
import { ChartTable } from './chart-table.tsx';
import { EventDialog, EventMarks, type PlacedEvent } from './event-marks.tsx';

const PLOT_HEIGHT_PX = 320;
/** Wheel and touch fire many times a second; the range is read once they pause. */
const GESTURE_PAUSE_MS = 200;
const LIVE_TICK_MS = 1000;
const EVENT_MARKS_MAX = 1000;
const EVENT_TYPE_PAUSE_MS = 400;
/** Resources whose events are marked at most (one read each: a relatedResources filter ANDs its entries). */
const MARKED_RESOURCES_MAX = 10;

function parseIds(params: URLSearchParams, name = 'ids'): number[] {
  return (params.get(name) ?? '').split(',').map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
}

export function ChartView({ params, navigation }: { params: URLSearchParams; navigation: number }) {
  const ids = useMemo(() => parseIds(params), [params.get('ids')]);
  const resources = useMemo(() => parseIds(params, 'resources'), [params.get('resources')]);
  const meta = useApi((signal) => ids.length === 0
    ? Promise.resolve({ items: [] as TimeSeries[] })
    : apiPost<Page<TimeSeries>>('/timeseries/byids', { items: ids.map((id) => ({ id })) }, signal), [ids.join(',')]);
  const all = meta.data?.items ?? [];
  const plotted = all.filter((series) => series.valueType !== 'TEXT');
  const text = all.filter((series) => series.valueType === 'TEXT');
  return (
    <section>
      <h1>{all.length > 0 ? all.map(displayName).join(', ') : 'Chart'}</h1>
      <ApiErrorAlert message={meta.error} />
      {ids.length === 0 && <p>No series chosen. <a href="#/timeseries">Choose time series</a> to plot.</p>}
      {meta.loading && !meta.data && <Loading what="series" />}
      {text.length > 0 && <p>Not plotted (TEXT values): {text.map(displayName).join(', ')}.</p>}
      {/* An address navigated to (a link, an edited URL, back and forward) draws its range
          anew; the panel's own zooms rewrite the address with replaceState, which is no navigation. */}
      {plotted.length > 0 && <ChartPanel key={navigation} series={plotted} resources={resources} initialRange={rangeFromParams(params, Date.now())} />}
    </section>
  );
}

interface DrawnState { range: TimeRange; granularity: Granularity; points: number; lastMs: number | undefined }

function cssColor(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/**
 * The events marked along the time axis: of a type when one is given, else those related to
 * the chosen resources (a resource page's chart) or, without any, to the plotted series.
 */
async function markedEvents(eventType: string, related: number[], range: TimeRange, signal: AbortSignal): Promise<PlantEvent[]> {
  const eventTime = { min: range.startMs, max: range.endMs };
  if (eventType) return (await apiPost<Page<PlantEvent>>('/events/filter', { filter: { type: eventType, eventTime }, limit: EVENT_MARKS_MAX }, signal)).items;
  const pages = await Promise.all(related.slice(0, MARKED_RESOURCES_MAX).map((id) =>
    apiPost<Page<PlantEvent>>('/events/filter', { filter: { relatedResources: [{ id }], eventTime }, limit: EVENT_MARKS_MAX }, signal)));
  const byId = new Map<string, PlantEvent>();
  for (const page of pages) for (const event of page.items) byId.set(event.id, event);
  return [...byId.values()].sort((a, b) => a.eventTime - b.eventTime).slice(0, EVENT_MARKS_MAX);
}

function ChartPanel({ series, resources, initialRange }: { series: TimeSeries[]; resources: number[]; initialRange: TimeRange }) {
  const ids = series.map((one) => one.id);
  const names = series.map(displayName);
  const [range, setRange] = useState(initialRange);
  const rangeRef = useRef(initialRange);
  const [loadKey, setLoadKey] = useState(0);
  const [loaded, setLoaded] = useState<LoadedRange | null>(null);
  const loadedRef = useRef<LoadedRange | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  const [liveStatus, setLiveStatus] = useState('');
  const [eventTypeText, setEventTypeText] = useState('');
  const [eventType, setEventType] = useState('');
  const [events, setEvents] = useState<PlantEvent[]>([]);
  const [placed, setPlaced] = useState<PlacedEvent[]>([]);
  const [openEvent, setOpenEvent] = useState<{ event: PlantEvent; opener: HTMLElement } | null>(null);
  const [showTable, setShowTable] = useState(false);
  const frame = useRef<HTMLDivElement>(null);
  const container = useRef<HTMLDivElement>(null);
  const strip = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const plotShape = useRef('');
  const drawn = useRef<DrawnState | null>(null);
  const detachGestures = useRef<() => void>(() => {});
  const gesturePause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const eventsRef = useRef<PlantEvent[]>([]);
  const liveRef = useRef(false);
  liveRef.current = live;

  const ariaLabel = `${names.join(', ')} from ${new Date(range.startMs).toISOString()} to ${new Date(range.endMs).toISOString()}`;

  /** Marks the chart as not drawn until the next load's draw, so a waiting reader never sees stale attributes. */
  const markPending = () => container.current?.setAttribute('data-drawn', 'false');

  const placeMarks = () => {
    const u = plot.current;
    const stripBox = strip.current?.getBoundingClientRect();
    if (!u || !stripBox) { setPlaced([]); return; }
    const overBox = u.over.getBoundingClientRect();
    const next: PlacedEvent[] = [];
    for (const event of eventsRef.current) {
      const x = u.valToPos(event.eventTime, 'x');
      if (x >= 0 && x <= overBox.width) next.push({ event, leftPx: overBox.left - stripBox.left + x });
    }
    setPlaced(next);
  };

  const onDrawn = (u: uPlot) => {
    const element = container.current;
    const state = drawn.current;
    if (!element || !state) return;
    element.setAttribute('data-start', String(state.range.startMs));
    element.setAttribute('data-end', String(state.range.endMs));
    element.setAttribute('data-granularity', state.granularity);
    element.setAttribute('data-points', String(state.points));
    if (state.lastMs === undefined) element.removeAttribute('data-last-point');
    else element.setAttribute('data-last-point', String(state.lastMs));
    element.setAttribute('data-drawn', 'true');
    if (u === plot.current) placeMarks();
  };

  const onSelect = (u: uPlot) => {
    if (u.select.width < 2) return;
    const startMs = Math.round(u.posToVal(u.select.left, 'x'));
    const endMs = Math.round(u.posToVal(u.select.left + u.select.width, 'x'));
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    if (endMs > startMs) applyRange({ startMs, endMs }, 'select', true);
  };

  /** Draws loadedRef's columns over rangeRef's range, creating the plot when its shape changed. */
  const draw = () => {
    const data = loadedRef.current;
    const element = container.current;
    if (!data || !element) return;
    const aligned = alignColumns(data.columns);
    const lastTimes = data.columns.flatMap((columns) => columns.timesMs.slice(-1));
    drawn.current = { range: { ...rangeRef.current }, granularity: data.granularity, points: pointCount(data.columns), lastMs: lastTimes.length > 0 ? Math.max(...lastTimes) : undefined };
    const shape = `${data.granularity === 'raw' ? 'line' : 'band'}:${ids.join(',')}`;
    if (plot.current && plotShape.current === shape) {
      plot.current.setData(aligned.data as uPlot.AlignedData);
      return;
    }
    detachGestures.current();
    plot.current?.destroy();
    const options = plotOptions({
      series: series.map((one) => ({ name: displayName(one), unit: one.unit ?? one.unitExternalId ?? '' })),
      index: aligned.index,
      width: Math.max(200, frame.current?.clientWidth ?? 600),
      height: PLOT_HEIGHT_PX,
      textColor: cssColor('--fg', '#1b1f24'),
      gridColor: cssColor('--grid', '#d0d7de'),
      xRange: () => [rangeRef.current.startMs, rangeRef.current.endMs],
      hooks: { draw: [onDrawn], setSelect: [onSelect] },
    });
    plotShape.current = shape;
    plot.current = new uPlot(options, aligned.data as uPlot.AlignedData, element);
    detachGestures.current = attachGestures(plot.current.over, () => rangeRef.current, (next, kind) => applyRange(next, kind, false));
  };

  function applyRange(next: TimeRange, kind: 'zoom' | 'pan' | 'select', immediate: boolean) {
    let target = next;
    if (liveRef.current) {
      if (kind === 'zoom') target = followNow(next, Date.now());
      else setLive(false);
    }
    rangeRef.current = target;
    setRange(target);
    markPending();
    clearTimeout(gesturePause.current);
    if (immediate) setLoadKey((key) => key + 1);
    else gesturePause.current = setTimeout(() => setLoadKey((key) => key + 1), GESTURE_PAUSE_MS);
  }

  // Read the visible range whenever a zoom, pan or Live start asks for it.
  useEffect(() => {
    const controller = new AbortController();
    const wanted = { ...rangeRef.current };
    markPending();
    history.replaceState(null, '', routeHash(['chart'], { ids: ids.join(','), start: String(wanted.startMs), end: String(wanted.endMs) }));
    loadRange(ids, wanted, controller.signal).then(
      (result) => {
        setError(null);
        loadedRef.current = result;
        setLoaded(result);
        draw();
      },
      (failure: unknown) => { if (!controller.signal.aborted) setError(errorMessage(failure)); },
    );
    return () => controller.abort();
  }, [loadKey]);

  // Event marks over the visible range (markedEvents says which).
  const related = resources.length > 0 ? resources : ids;
  useEffect(() => {
    const controller = new AbortController();
    markedEvents(eventType, related, rangeRef.current, controller.signal).then(
      (found) => { eventsRef.current = found; setEvents(found); placeMarks(); },
      (failure: unknown) => { if (!controller.signal.aborted) setError(errorMessage(failure)); },
    );
    return () => controller.abort();
  }, [eventType, loadKey, related.join(',')]);

  useEffect(() => {
    const pause = setTimeout(() => setEventType(eventTypeText.trim()), EVENT_TYPE_PAUSE_MS);
    return () => clearTimeout(pause);
  }, [eventTypeText]);

  // Live: follow now, append streamed points, keep only the visible range's points.
  useEffect(() => {
    if (!live) { setLiveStatus(''); return; }
    const token = currentToken();
    if (!token) return;
    rangeRef.current = followNow(rangeRef.current, Date.now());
    setRange(rangeRef.current);
    setLoadKey((key) => key + 1);
    let drawQueued = false;
    const queueDraw = () => {
      if (drawQueued) return;
      drawQueued = true;
      requestAnimationFrame(() => { drawQueued = false; draw(); });
    };
    const close = openLiveStream(ids, token, {
      onPoints: (seriesId, points) => {
        const columns: SeriesColumns | undefined = loadedRef.current?.columns[ids.indexOf(seriesId)];
        if (!columns) return;
        appendLivePoints(columns, points, rangeRef.current.startMs);
        queueDraw();
      },
      onStatus: setLiveStatus,
      onStop: (reason) => { setLive(false); setError(reason); },
    });
    const tick = setInterval(() => {
      rangeRef.current = followNow(rangeRef.current, Date.now());
      setRange(rangeRef.current);
      for (const columns of loadedRef.current?.columns ?? []) appendLivePoints(columns, [], rangeRef.current.startMs);
      queueDraw();
    }, LIVE_TICK_MS);
    return () => { clearInterval(tick); close(); };
  }, [live]);

  // Follow the frame's width; destroy the plot with the view.
  useEffect(() => {
    const observer = new ResizeObserver(() => {
      const width = frame.current?.clientWidth;
      if (plot.current && width) plot.current.setSize({ width: Math.max(200, width), height: PLOT_HEIGHT_PX });
    });
    if (frame.current) observer.observe(frame.current);
    return () => {
      observer.disconnect();
      clearTimeout(gesturePause.current);
      detachGestures.current();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  const zoom = (factor: number) => applyRange(zoomRange(rangeRef.current, factor, liveRef.current ? 1 : 0.5), 'zoom', true);
  const pan = (fraction: number) => applyRange(panRange(rangeRef.current, fraction), 'pan', true);
  const onKeyDown = (event: KeyboardEvent) => {
    const actions: Record<string, () => void> = {
      '+': () => zoom(1 / ZOOM_STEP), '=': () => zoom(1 / ZOOM_STEP), '-': () => zoom(ZOOM_STEP),
      ArrowLeft: () => pan(-PAN_FRACTION), ArrowRight: () => pan(PAN_FRACTION),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };
  const exportCsv = () => {
    if (!loadedRef.current) return;
    const csv = toCsv(loadedRef.current.columns.map((columns, i) => ({ name: names[i]!, columns })), rangeRef.current.startMs, rangeRef.current.endMs);
    saveBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), csvFileName(names));
  };

  return (
    <div class="chart-panel">
      <div class="toolbar" role="toolbar" aria-label="Chart controls">
        <button type="button" onClick={() => zoom(1 / ZOOM_STEP)}>Zoom in</button>
        <button type="button" onClick={() => zoom(ZOOM_STEP)}>Zoom out</button>
        <button type="button" onClick={() => pan(-PAN_FRACTION)}>Pan left</button>
        <button type="button" onClick={() => pan(PAN_FRACTION)}>Pan right</button>
        <button type="button" aria-pressed={showTable} onClick={() => setShowTable(!showTable)}>Show table</button>
        <button type="button" disabled={!loaded} onClick={exportCsv}>Export CSV</button>
        <label class="switch"><input type="checkbox" role="switch" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} /> Live</label>
        <label for="event-type">Event type</label>
        <input id="event-type" value={eventTypeText} onInput={(e) => setEventTypeText(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter') setEventType(e.currentTarget.value.trim()); }} />
      </div>
      <ApiErrorAlert message={error} />
      <p class="chart-status" aria-live="polite">
        {loaded ? `${loaded.granularity === 'raw' ? 'Raw points' : `${loaded.granularity} buckets (min–max band, average line)`}` : 'Loading data…'}
        {liveStatus ? ` · ${liveStatus}` : ''}
        {eventType ? ` · ${events.length} events of type ${eventType}` : events.length > 0 ? ` · ${events.length} related events` : ''}
      </p>
      <div class="chart-frame" ref={frame}>
        <div ref={strip} class="event-strip"><EventMarks placed={placed} onOpen={(event, opener) => setOpenEvent({ event, opener })} /></div>
        <div ref={container} class="chart" role="img" tabIndex={0} data-testid="chart" aria-label={ariaLabel} onKeyDown={onKeyDown} />
      </div>
      <p class="hint">Drag across the chart to zoom in; the wheel zooms, arrow keys pan and + / − zoom when the chart has focus.</p>
      {showTable && loaded && <ChartTable names={names} columns={loaded.columns} startMs={range.startMs} endMs={range.endMs} />}
      {openEvent && <EventDialog event={openEvent.event} onClose={() => { const opener = openEvent.opener; setOpenEvent(null); opener.focus(); }} />}
    </div>
  );
}
