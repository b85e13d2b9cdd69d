// Event marks along the chart's time axis and the dialog that shows one event's fields.
import { useEffect, useRef } from 'preact/hooks';
import { formatTime } from '../format.ts';
import type { PlantEvent } from '../types.ts';

export interface PlacedEvent { event: PlantEvent; leftPx: number }

export function EventMarks({ placed, onOpen }: { placed: PlacedEvent[]; onOpen: (event: PlantEvent, opener: HTMLElement) => void }) {
  return (
    <div class="event-marks">
      {placed.map(({ event, leftPx }) => (
        <button key={event.id} type="button" class="event-mark" data-testid="event-mark" style={{ left: `${leftPx}px` }}
          aria-label={`Event ${event.type ?? ''} at ${new Date(event.eventTime).toISOString()}`}
          onClick={(e) => onOpen(event, e.currentTarget)}>
          <span aria-hidden="true">▼</span>
        </button>
      ))}
    </div>
  );
}

function eventFields(event: PlantEvent): [string, string][] {
  const fields: [string, string][] = [
    ['Type', event.type ?? ''], ['Subtype', event.subType ?? ''], ['Time', formatTime(event.eventTime)],
    ['Start', formatTime(event.startTime)], ['End', formatTime(event.endTime)], ['Status', event.status ?? ''],
    ['Source', event.source ?? ''], ['Description', event.description ?? ''], ['External ID', event.externalId ?? ''], ['ID', event.id],
    ['Related', (event.relatedResources ?? []).map((related) => related.externalId || related.id).join(', ')],
  ];
  for (const [key, value] of Object.entries(event.metadata ?? {})) fields.push([`metadata.${key}`, String(value)]);
  return fields.filter(([, value]) => value !== '');
}

/** A modal <dialog>: the browser traps focus and Escape closes it; focus returns to the opener. */
export function EventDialog({ event, onClose }: { event: PlantEvent; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog ref={dialog} role="dialog" aria-label="Event details" class="event-dialog" onClose={onClose}>
      <h2>Event details</h2>
      <dl>
        {eventFields(event).map(([name, value]) => <div key={name}><dt>{name}</dt><dd>{value}</dd></div>)}
      </dl>
      <button type="button" onClick={() => dialog.current?.close()}>Close</button>
    </dialog>
  );
}
