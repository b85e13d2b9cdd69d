// `npm run token -- --org acme --sub alice [--read a,b] [--write c] [--ttl 3600]`: prints a
// token signed with AUTH_JWT_SECRET (or the secret generated into DATA_DIR).
import { parseArgs } from 'node:util';
import { loadConfig } from '../engine/config.ts';
import { mintToken } from './auth.ts';
import { resolveJwtSecret } from './server.ts';

const grantList = (value: string | undefined) =>
  value === undefined ? undefined : value.split(',').filter(Boolean).map((v) => (/^\d+$/.test(v) ? Number(v) : v));

const { values } = parseArgs({
  options: {
    org: { type: 'string' }, sub: { type: 'string' }, read: { type: 'string' }, write: { type: 'string' }, ttl: { type: 'string' },
  },
});
if (!values.org || !values.sub) {
  process.stderr.write('usage: npm run token -- --org <tenant> --sub <user> [--read a,b] [--write c] [--ttl seconds]\n');
  process.exit(2);
}
const config = loadConfig();
const secret = resolveJwtSecret(config);
if (!secret) {
  process.stderr.write('AUTH_JWKS_URL is set: tokens come from that identity provider, not from this command\n');
  process.exit(2);
}
process.stdout.write(`${mintToken({
  secret, organization: values.org, sub: values.sub, read: grantList(values.read), write: grantList(values.write),
  expiresInSeconds: values.ttl ? Number(values.ttl) : 3600,
})}\n`);
