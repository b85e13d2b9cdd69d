// The one pino root logger (STYLE §10). Modules take a child with { module }.
import { pino } from 'pino';

export const logger = pino({
  level: process.env['LOG_LEVEL'] ?? 'info',
  // Tokens and bodies never reach a log line (STYLE §10); redact the usual carriers anyway.
  redact: ['req.headers.authorization', 'authorization', 'token'],
  base: undefined,
});

export type Logger = typeof logger;
