// The events suite's load: the resources events relate to, the create requests and
// the same rows as COPY files (generated from the EventLog), the COPY peer the create rate is
// measured against, and the API load with its RSS samples. The timed reads are events.ts's.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { HttpClient, parseJson, UnexpectedAnswerError, type HttpAnswer } from './http-client.ts';
import { readStatusBytes } from './proc-stats.ts';
import { BODY_BYTES_MAX, EventLog } from './events-workload.ts';
import { quantile } from './stats.ts';

export class EventsCheckError extends Error {}

export function eventsCheck(condition: boolean, message: string): asserts condition {
  if (!condition) throw new EventsCheckError(`events answer check failed: ${message}`);
}

export async function createResources(client: HttpClient, eventLog: EventLog): Promise<number[]> {
  const n = eventLog.size.resourceCount;
  const ids: number[] = [];
  for (let from = 0; from < n; from += 1_000) {
    const nodes: { externalId: string; name: string; isRoot: boolean }[] = [];
    const relations: { fromExternalId: string; toExternalId: string; relationshipType: string }[] = [];
    for (let r = from; r < Math.min(n, from + 1_000); r++) {
      nodes.push({ externalId: eventLog.resourceExternalId(r), name: `equipment ${r}`, isRoot: r === 0 });
      if (r > 0) relations.push({ fromExternalId: eventLog.resourceExternalId(0), toExternalId: eventLog.resourceExternalId(r), relationshipType: 'CONTAINS' });
    }
    const created = parseJson<{ items: { id: number; externalId: string }[] }>(await client.postJson('/resources/create', { nodes, relations }, 201)).items;
    eventsCheck(created.length === nodes.length, `resources/create returned ${created.length} of ${nodes.length}`);
    created.forEach((node, k) => {
      eventsCheck(node.externalId === nodes[k]?.externalId, 'resources/create answer out of order');
      ids.push(Number(node.id));
    });
  }
  return ids;
}

interface Load {
  bodies: Buffer[];
  /** Index of each request's first event. */
  firstEvent: number[];
  bodyBytes: number;
  copyFiles: string[];
}

/** COPY text format: backslash, tab, newline and carriage return escaped. */
const copyText = (value: string) => value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));

/** Every create request (as many events as fit in 4 MiB, at most requestEventsMax) and the same rows as COPY files. */
export function generateLoad(eventLog: EventLog, resourceIds: number[], tenant: string, workDir: string): Load {
  const { size } = eventLog;
  const bodies: Buffer[] = [];
  const firstEvent: number[] = [];
  const copyFiles: string[] = [];
  let parts: string[] = [];
  let lines: string[] = [];
  let bytes = 0;
  let bodyBytes = 0;
  let first = 0;
  const now = Date.now();
  const flush = () => {
    const body = Buffer.from(`{"items":[${parts.join(',')}]}`);
    bodies.push(body);
    firstEvent.push(first);
    bodyBytes += body.length;
    const file = path.join(workDir, `copy-${String(copyFiles.length).padStart(5, '0')}.tsv`);
    writeFileSync(file, lines.join(''));
    chmodSync(file, 0o644);
    copyFiles.push(file);
    parts = [];
    lines = [];
    bytes = 0;
  };
  for (let i = 0; i < size.eventCount; i++) {
    const ranks = eventLog.descriptionRanks(i);
    eventLog.noteSearchWords(i, ranks);
    const description = ranks.map((r) => eventLog.words[r]).join(' ');
    const related = eventLog.related(i);
    const metadata = JSON.stringify(eventLog.metadata(i));
    const part = `{"externalId":"${eventLog.externalId(i)}","eventTime":${eventLog.eventTime(i)},"type":"${eventLog.type(i)}","subType":"${eventLog.subType(i)}","status":"${eventLog.status(i)}","source":"${eventLog.source(i)}","description":"${description}","metadata":${metadata},"relatedResources":[${related.map((r) => `{"externalId":"${eventLog.resourceExternalId(r)}"}`).join(',')}]}`;
    if (parts.length > 0 && (parts.length >= size.requestEventsMax || bytes + part.length + 32 > BODY_BYTES_MAX)) {
      flush();
      first = i;
    }
    parts.push(part);
    bytes += part.length + 1;
    const stored = related.map((r) => ({ id: resourceIds[r] as number, externalId: eventLog.resourceExternalId(r) }));
    lines.push(`${[
      tenant, uuidv7(), eventLog.externalId(i), String(eventLog.eventTime(i)), eventLog.type(i), eventLog.subType(i), eventLog.status(i), eventLog.source(i),
      description, '\\N', JSON.stringify(stored), `{${stored.map((r) => r.id).join(',')}}`, metadata, String(now), String(now),
    ].map((v) => (v === '\\N' ? v : copyText(v))).join('\t')}\n`);
  }
  if (parts.length > 0) flush();
  return { bodies, firstEvent, bodyBytes, copyFiles };
}

const COPY_COLUMNS = 'tenant, id, external_id, event_time, type, sub_type, status, source, description, data_set_id, related_resources, related_ids, metadata, created_time, last_updated_time';
const COPY_TABLE = 'bench_events_copy';

/**
 * The service's embedded PostgreSQL (engine/stores/relational.ts: user postgres, password
 * `embedded`, on loopback at the port its postmaster.pid names).
 */
export function servicePostgresUrl(dataDir: string): string {
  const lines = readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
  return `postgres://postgres:embedded@127.0.0.1:${Number(lines[3])}/postgres`;
}

export async function copyPeer(dataDir: string, eventCount: number, files: string[], sessions: number, log: (line: string) => void): Promise<{ rowsPerSecond: number }> {
  const url = servicePostgresUrl(dataDir);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP TABLE IF EXISTS ${COPY_TABLE}`);
    // LIKE copies columns, defaults, generated columns, storage and indexes, not the table's storage parameters (migration 010's toast_tuple_target).
    const { rows: options } = await admin.query<{ options: string | null }>("SELECT array_to_string(reloptions, ', ') AS options FROM pg_class WHERE oid = 'events'::regclass");
    const withOptions = options[0]?.options ? ` WITH (${options[0].options})` : '';
    await admin.query(`CREATE TABLE ${COPY_TABLE} (LIKE events INCLUDING ALL)${withOptions}`);
    await admin.query('CHECKPOINT');
    const clients = await Promise.all(Array.from({ length: sessions }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }));
    let next = 0;
    const started = performance.now();
    await Promise.all(clients.map(async (c) => {
      while (next < files.length) {
        const file = files[next++] as string;
        await c.query(`COPY ${COPY_TABLE} (${COPY_COLUMNS}) FROM '${file}'`);
        if (next % 50 === 0) log(`events: COPY ${next}/${files.length} files`);
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(clients.map((c) => c.end()));
    const { rows } = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${COPY_TABLE}`);
    eventsCheck(Number(rows[0]?.n) === eventCount, `COPY loaded ${rows[0]?.n} rows of ${eventCount}`);
    await admin.query(`DROP TABLE ${COPY_TABLE}`);
    await admin.query('CHECKPOINT');
    return { rowsPerSecond: eventCount / seconds };
  } finally {
    await admin.end();
  }
}

interface RssSamples { startBytes: number; peakBytes: number; endBytes: number; samples: number; /** Peak in each quarter of the load (by requests answered): flat when the later ones do not climb. */ quarterPeakBytes: number[] }

export async function apiLoad(client: HttpClient, mainPid: number, bodies: Buffer[], senders: number, log: (line: string) => void) {
  const answers: HttpAnswer[] = new Array(bodies.length);
  const requestMs: number[] = [];
  const rss: RssSamples = { startBytes: readStatusBytes(mainPid, 'VmRSS'), peakBytes: 0, endBytes: 0, samples: 1, quarterPeakBytes: [0, 0, 0, 0] };
  rss.peakBytes = rss.startBytes;
  let answered = 0;
  const timer = setInterval(() => {
    const bytes = readStatusBytes(mainPid, 'VmRSS');
    rss.samples++;
    if (bytes > rss.peakBytes) rss.peakBytes = bytes;
    const quarter = Math.min(3, Math.floor((answered * 4) / bodies.length));
    rss.quarterPeakBytes[quarter] = Math.max(rss.quarterPeakBytes[quarter] as number, bytes);
  }, 200);
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: senders }, async () => {
      while (next < bodies.length) {
        const k = next++;
        const answer = await client.request('POST', '/events/create', bodies[k], { 'content-type': 'application/json' });
        if (answer.status !== 201) throw new UnexpectedAnswerError('POST /events/create', 201, answer);
        answers[k] = answer;
        answered++;
        requestMs.push(answer.elapsedMs);
        if (k % 50 === 49) log(`events: created ${k + 1}/${bodies.length} requests`);
      }
    }));
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  rss.endBytes = readStatusBytes(mainPid, 'VmRSS');
  rss.peakBytes = Math.max(rss.peakBytes, rss.endBytes);
  return { answers, seconds, rss, medianRequestMs: quantile(requestMs, 0.5) };
}
