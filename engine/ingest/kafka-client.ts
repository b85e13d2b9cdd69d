// The kafkajs client shared by the Kafka ingest log (producer) and the ingester (consumer):
// explicit connection and request timeouts (STYLE §3) and kafkajs logs routed to pino.
import { createRequire } from 'node:module';
import type { Kafka, LogEntry, logCreator, logLevel } from 'kafkajs';
import type { Logger } from '../log.ts';

/** kafkajs, loaded by the first Kafka client: without KAFKA_BROKERS the start never imports it. */
let loaded: typeof import('kafkajs') | undefined;
export const kafkajs = (): typeof import('kafkajs') => (loaded ??= createRequire(import.meta.url)('kafkajs') as typeof import('kafkajs'));

/** Options of the kafkajs client; every timeout is explicit. */
export interface KafkaClientOptions {
  /** Bootstrap servers, `host:port` (CONTRACT `KAFKA_BROKERS`). */
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** TCP connect timeout per broker. @default 3000 */
  connectionTimeoutMs?: number;
  /** Timeout of one request to a broker. @default 30000 */
  requestTimeoutMs?: number;
  /**
   * Retries of cluster-level operations (connecting, metadata). These nest inside the
   * producer's and consumer's own retries, so keep them few. @default 3
   */
  clusterRetries?: number;
}

/** kafkajs messages that are expected in our setup and are not worth a warning. */
const EXPECTED_KAFKAJS_WARNINGS = [
  // We cap the idempotent producer's retries on purpose (kafka-log.ts): a write that cannot
  // reach Kafka must fail within appendTimeoutMs, and a retried append gets a new
  // writeVersion, so a duplicate can never show.
  'Limiting retries for the idempotent producer',
];

function kafkaLogCreator(logger: Logger): logCreator {
  return () => (entry: LogEntry) => {
    const { message, timestamp: _timestamp, logger: _source, ...extra } = entry.log as { message: string; timestamp: string; logger?: string; [key: string]: unknown };
    const fields = { namespace: entry.namespace, ...extra };
    if (entry.level === kafkajs().logLevel.ERROR) logger.error(fields, message);
    else if (entry.level === kafkajs().logLevel.WARN) {
      if (EXPECTED_KAFKAJS_WARNINGS.some((expected) => message.startsWith(expected))) logger.debug(fields, message);
      else logger.warn(fields, message);
    } else if (entry.level === kafkajs().logLevel.INFO) logger.debug(fields, message);
    else logger.trace(fields, message);
  };
}

/** kafkajs lifecycle lines (joins, starts) are debug for us; our modules log their own. */
function kafkaLogLevel(logger: Logger): logLevel {
  return logger.isLevelEnabled('debug') ? kafkajs().logLevel.DEBUG : kafkajs().logLevel.WARN;
}

export function createKafkaClient(options: KafkaClientOptions): Kafka {
  if (options.brokers.length === 0) throw new Error('Kafka needs at least one broker in KAFKA_BROKERS');
  return new (kafkajs().Kafka)({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    enforceRequestTimeout: true,
    retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: options.clusterRetries ?? 3 },
    logLevel: kafkaLogLevel(options.logger),
    logCreator: kafkaLogCreator(options.logger.child({ module: 'kafkajs' })),
  });
}
