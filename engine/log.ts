// The one pino root logger (STYLE §10). Modules take a child with { module }. Its level starts
// at info and is set from the configuration (LOG_LEVEL, read by engine/config.ts only, STYLE §9)
// when the service starts (api/server.ts startServer: logger.level = config.logLevel); children
// follow the root's level unless given their own.
import { pino } from 'pino';

export const logger = pino({
  level: 'info',
  // Tokens and bodies never reach a log line (STYLE §10); redact the usual carriers anyway.
  redact: ['req.headers.authorization', 'authorization', 'token'],
  base: undefined,
});

export type Logger = typeof logger;
