// Child process for ingester.test.ts: an ingester whose store takes the first insert, says
// so on stdout ("INSERTED <points>"), and then never returns, so the parent can SIGKILL it
// between the insert and the offset commit. Configured by KAFKA_BROKERS, TOPIC, GROUP_ID.
import { logger } from '../log.ts';
import { startIngester } from './ingester.ts';

const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
const topic = process.env['TOPIC'] as string;
const groupId = process.env['GROUP_ID'] as string;

await startIngester({
  brokers,
  topic,
  groupId,
  logger: logger.child({ test: 'ingester-crash-child' }, { level: 'silent' }),
  store: {
    insert: (batch) => {
      const points = batch.series.reduce((sum, s) => sum + s.timestampMs.length, 0);
      process.stdout.write(`INSERTED ${points}\n`);
      return new Promise<void>(() => undefined);
    },
  },
});
process.stdout.write('STARTED\n');
