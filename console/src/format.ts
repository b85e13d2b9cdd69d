// Text for numbers, sizes and times as the tables show them. Pure.

export function formatTime(epochMs: number | undefined): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '';
  return new Date(epochMs).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, ' UTC');
}

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) { value /= 1024; unit++; }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${SIZE_UNITS[unit]}`;
}

/** A record's display name: its name, else its externalId, else its id. */
export function displayName(record: { id: number | string; name?: string; externalId?: string }): string {
  return record.name || record.externalId || String(record.id);
}
