// The relational side of the engine's start: PostgreSQL (embedded: initdb and the postmaster in
// processes of their own), migrated, with what stands on it alone (usage counters, the series
// directory). Apart from engine.ts, whose imports reach every area, so the server can start it
// right after binding its port and import the rest meanwhile (docs/architecture.md, "What the
// start spends its time on"). engine.ts opens the data point side beside it.
import type { ServiceConfig } from './config.ts';
import { openSeriesDirectory } from './meta/series-directory.ts';
import { Quotas } from './quotas/quotas.ts';
import { migrate } from './stores/migrations.ts';
import { openRelational, type RelationalStore } from './stores/relational.ts';

/** PostgreSQL, migrated, with the usage counters and the series directory. */
export interface RelationalSide {
  relational: RelationalStore;
  quotas: Quotas;
  series: Awaited<ReturnType<typeof openSeriesDirectory>>;
}

export interface RelationalStart {
  opened: Promise<RelationalSide>;
  /**
   * Resolves once PostgreSQL's first process has spoken (or the open is over, either way):
   * from then on its start runs in its own processes, and the event loop is free for other
   * synchronous work (chdb's library and session load).
   */
  processStarted: Promise<void>;
}

async function openRelationalSide(config: Readonly<ServiceConfig>, onProcessStarted: () => void): Promise<RelationalSide> {
  let relational: RelationalStore;
  try {
    relational = await openRelational({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, onProcessStarted });
  } finally {
    onProcessStarted();
  }
  try {
    await migrate(relational);
    return { relational, quotas: new Quotas(relational.counterPool, config), series: await openSeriesDirectory(relational) };
  } catch (error) {
    await relational.close().catch(() => undefined);
    throw error;
  }
}

/** Starts opening the relational side; whoever holds the result closes it (closeRelationalSide). */
export function startRelationalSide(config: Readonly<ServiceConfig>): RelationalStart {
  let processStarted!: () => void;
  const started = new Promise<void>((resolve) => { processStarted = resolve; });
  const opened = openRelationalSide(config, () => processStarted());
  // A rejection is the holder's to handle; this only keeps it from counting as unhandled meanwhile.
  opened.catch(() => undefined);
  return { opened, processStarted: started };
}

export async function closeRelationalSide(side: RelationalSide): Promise<void> {
  await side.series.close().catch(() => undefined);
  await side.relational.close().catch(() => undefined);
}
