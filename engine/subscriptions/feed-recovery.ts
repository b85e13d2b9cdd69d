// The crash window of the subscription feed (subscription-broker.ts): points committed above
// the feeder's mark are read back from the data point store at start, after the ingest WAL
// was replayed into it, as batches the broker appends like committed ones. Rows are read
// without FINAL: every version above the mark is a write the feed may have missed, and a
// point delivered twice is within at-least-once. Tenant and series lead the WHERE (the
// tables' ORDER BY), so only the covered series are read.
import type { SeriesPoints, ValueType } from '../datapoints/types.ts';
import type { CommittedBatch } from '../ingest/ingest-log.ts';
import { FAMILY_SHAPES, familyOf } from '../datapoints/tables/families.ts';
import type { ColumnarStore } from '../stores/columnar.ts';
import type { RecoverSince } from './subscription-broker.ts';

interface Row {
  sid: string;
  t_ms: number;
  v: string;
  val: string | number;
  txt?: string;
  is_txt?: number;
}

export function storeRecovery(columnar: ColumnarStore): RecoverSince {
  return async (tenant, series, afterVersion) => {
    const byFamily = new Map<string, { seriesId: number; valueType: ValueType }[]>();
    for (const s of series) {
      const family = familyOf(s.valueType as ValueType);
      byFamily.set(family, [...(byFamily.get(family) ?? []), { seriesId: s.seriesId, valueType: s.valueType as ValueType }]);
    }
    const batches: CommittedBatch[] = [];
    for (const [family, members] of byFamily) {
      const shape = FAMILY_SHAPES[family as keyof typeof FAMILY_SHAPES];
      // Aliases unlike the columns: ClickHouse resolves a WHERE name to a same-named alias first.
      const value = family === 'mixed' ? 'value AS val, text AS txt, is_text AS is_txt'
        : family === 'text' || family === 'float' ? 'value AS val' : `toString(${shape.readValueSelect.replace(/ AS value$/, '')}) AS val`;
      const rows = await columnar.query<Row>(
        `SELECT toString(series_id) AS sid, toFloat64(ts) AS t_ms, toString(version) AS v, ${value}
           FROM ${shape.rawTable}
          WHERE tenant = {tenant:String} AND series_id IN {series:Array(UInt64)} AND version > {after:UInt64}
          ORDER BY series_id, ts, version`,
        { tenant, series: members.map((m) => m.seriesId), after: afterVersion },
      );
      const typeOf = new Map(members.map((m) => [m.seriesId, m.valueType]));
      const grouped = new Map<number, Row[]>();
      for (const row of rows) {
        const id = Number(row.sid);
        const list = grouped.get(id);
        // The same timestamp twice: the later version replaced the earlier one.
        if (list && list[list.length - 1]!.t_ms === row.t_ms) list[list.length - 1] = row;
        else if (list) list.push(row);
        else grouped.set(id, [row]);
      }
      for (const [seriesId, points] of grouped) {
        const valueType = typeOf.get(seriesId) as ValueType;
        const s: SeriesPoints = { seriesId, valueType, timestampMs: Float64Array.from(points, (p) => p.t_ms) };
        if (family === 'text') s.text = points.map((p) => String(p.val));
        else if (family === 'mixed') {
          s.float = Float64Array.from(points, (p) => Number(p.val));
          s.text = points.map((p) => p.txt ?? '');
          s.isText = Uint8Array.from(points, (p) => Number(p.is_txt ?? 0));
        } else if (family === 'float') s.float = Float64Array.from(points, (p) => Number(p.val));
        else if (family === 'int') s.bigint = BigInt64Array.from(points, (p) => BigInt(String(p.val)));
        else s.scaled = BigInt64Array.from(points, (p) => BigInt(String(p.val)));
        const writeVersion = points.reduce((max, p) => (BigInt(p.v) > max ? BigInt(p.v) : max), 0n);
        batches.push({ tenant, writeVersion, series: [s] });
      }
    }
    return batches;
  };
}
