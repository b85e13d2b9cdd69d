// The time series search box's query: free words for SPEC's fuzzy search (name, externalId,
// description) and `field:value` terms for the filter the search applies: `unit:` (unit or
// unitExternalId pattern, `*` wildcards), `dataset:` (a data set externalId, descendants
// included), `label:` (each must be present) and `meta:key=value` (a metadata entry; the
// prefix keeps names holding `=` plain words). Values with spaces take double quotes:
// `unit:"deg C"`. Pure, so the parse is tested without a browser.

export interface SeriesFilter {
  unit?: string;
  unitExternalId?: string;
  dataSetId?: { externalId: string }[];
  labels?: string[];
  metadata?: Record<string, string>;
}

export interface SeriesQuery {
  /** The free words, for /timeseries/search; empty: list with the filter alone. */
  text: string;
  filter: SeriesFilter;
}

/** Words and quoted phrases, quotes removed: `a "b c" d:"e f"` → a, b c, d:e f. */
function tokens(input: string): string[] {
  const found: string[] = [];
  const pattern = /(?:[^\s"]+|"[^"]*")+/g;
  for (const match of input.matchAll(pattern)) found.push(match[0].replace(/"/g, ''));
  return found.filter((token) => token !== '');
}

export function parseSeriesQuery(input: string): SeriesQuery {
  const words: string[] = [];
  const filter: SeriesFilter = {};
  for (const token of tokens(input)) {
    const field = /^(unit|dataset|label):(.+)$/i.exec(token);
    const entry = /^meta:([^=]+)=(.*)$/i.exec(token);
    if (field) {
      const [, name, value] = field as unknown as [string, string, string];
      const kind = name.toLowerCase();
      // A unit may be named by symbol or by its catalogue externalId (`pressure:bar`).
      if (kind === 'unit') { if (value.includes(':')) filter.unitExternalId = value; else filter.unit = value; }
      if (kind === 'dataset') filter.dataSetId = [...(filter.dataSetId ?? []), { externalId: value }];
      if (kind === 'label') filter.labels = [...(filter.labels ?? []), value];
    } else if (entry) {
      const [, key, value] = entry as unknown as [string, string, string];
      filter.metadata = { ...filter.metadata, [key]: value };
    } else {
      words.push(token);
    }
  }
  return { text: words.join(' '), filter };
}

export const hasFilter = (filter: SeriesFilter): boolean => Object.keys(filter).length > 0;
