// Wheel and touch on the plot area: the wheel zooms around the pointer, one finger pans, two
// fingers pinch. Reports a new range; the chart view decides what to load.
import { panRange, zoomRange, type TimeRange } from './range.ts';

const WHEEL_ZOOM_IN = 0.8;
const WHEEL_ZOOM_OUT = 1.25;

export function attachGestures(area: HTMLElement, currentRange: () => TimeRange, onRange: (range: TimeRange, kind: 'zoom' | 'pan') => void): () => void {
  const fractionAt = (clientX: number) => {
    const box = area.getBoundingClientRect();
    return box.width > 0 ? Math.min(1, Math.max(0, (clientX - box.left) / box.width)) : 0.5;
  };
  const onWheel = (event: WheelEvent) => {
    event.preventDefault();
    if (event.deltaY === 0) return;
    onRange(zoomRange(currentRange(), event.deltaY > 0 ? WHEEL_ZOOM_OUT : WHEEL_ZOOM_IN, fractionAt(event.clientX)), 'zoom');
  };
  let lastTouches: { x: number }[] = [];
  const touchesOf = (event: TouchEvent) => [...event.touches].map((touch) => ({ x: touch.clientX }));
  const onTouchStart = (event: TouchEvent) => { lastTouches = touchesOf(event); };
  const onTouchMove = (event: TouchEvent) => {
    const touches = touchesOf(event);
    const width = area.getBoundingClientRect().width || 1;
    if (touches.length === 1 && lastTouches.length === 1) {
      event.preventDefault();
      onRange(panRange(currentRange(), -(touches[0]!.x - lastTouches[0]!.x) / width), 'pan');
    } else if (touches.length === 2 && lastTouches.length === 2) {
      event.preventDefault();
      const before = Math.abs(lastTouches[0]!.x - lastTouches[1]!.x);
      const after = Math.abs(touches[0]!.x - touches[1]!.x);
      if (before > 0 && after > 0) onRange(zoomRange(currentRange(), before / after, fractionAt((touches[0]!.x + touches[1]!.x) / 2)), 'zoom');
    }
    lastTouches = touches;
  };
  area.addEventListener('wheel', onWheel, { passive: false });
  area.addEventListener('touchstart', onTouchStart, { passive: true });
  area.addEventListener('touchmove', onTouchMove, { passive: false });
  return () => {
    area.removeEventListener('wheel', onWheel);
    area.removeEventListener('touchstart', onTouchStart);
    area.removeEventListener('touchmove', onTouchMove);
  };
}
