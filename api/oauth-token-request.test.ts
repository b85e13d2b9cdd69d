// Goal: reading POST /oauth/token never throws on hostile input: a JSON null, a
// scalar, an array, a non-string field, bad UTF-8, a parameter given twice, an unknown
// Content-Type or a malformed Basic header is an invalid_request description; good forms,
// JSON and Basic credentials give their fields. Method: one line per case through check().
import t from 'tap';
import { tokenRequest, type TokenRequest } from './oauth-token-request.ts';

const FORM = 'application/x-www-form-urlencoded';
const basic = (text: string): string => `Basic ${Buffer.from(text).toString('base64')}`;

function check(name: string, body: string | Uint8Array | undefined, contentType: string, expected: TokenRequest | 'invalid', authorization = ''): void {
  const raw = typeof body === 'string' ? new Uint8Array(Buffer.from(body)) : body;
  const got = tokenRequest(raw, contentType, authorization);
  if (expected === 'invalid') t.equal(got.ok, false, `${name}: invalid_request (${got.ok ? 'accepted' : got.description})`);
  else t.strictSame(got, expected, name);
}

const fields = (f: Record<string, string>): TokenRequest => ({ ok: true, fields: f });

t.test('well-formed requests', async () => {
  check('form', 'grant_type=client_credentials&client_id=a&client_secret=b%26c', FORM, fields({ grant_type: 'client_credentials', client_id: 'a', client_secret: 'b&c' }));
  check('form without Content-Type', 'grant_type=client_credentials', '', fields({ grant_type: 'client_credentials' }));
  check('JSON', '{"grant_type":"client_credentials","client_id":"a","client_secret":"b","other":[1]}', 'application/json', fields({ grant_type: 'client_credentials', client_id: 'a', client_secret: 'b' }));
  check('Basic, secret with a colon', 'grant_type=client_credentials', FORM, fields({ grant_type: 'client_credentials', client_id: 'a b', client_secret: 's:e' }), basic('a%20b:s:e'));
  check('no body, Basic only', undefined, '', fields({ client_id: 'a', client_secret: 'b' }), basic('a:b'));
});

t.test('hostile requests are invalid_request, never an exception', async () => {
  check('JSON null', 'null', 'application/json', 'invalid');
  check('JSON scalar', '42', 'application/json', 'invalid');
  check('JSON string', '"client_credentials"', 'application/json', 'invalid');
  check('JSON array', '[{"grant_type":"client_credentials"}]', 'application/json', 'invalid');
  check('a number for a secret', '{"grant_type":"client_credentials","client_id":"a","client_secret":123}', 'application/json', 'invalid');
  check('an object for a grant type', '{"grant_type":{"x":1}}', 'application/json', 'invalid');
  check('not JSON', '{"grant_type":', 'application/json', 'invalid');
  check('a duplicate JSON key', '{"client_id":"a","client_id":"b"}', 'application/json', 'invalid');
  check('deep JSON', '['.repeat(100_000), 'application/json', 'invalid');
  check('invalid UTF-8 in JSON', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 'application/json', 'invalid');
  check('invalid UTF-8 in a form', new Uint8Array([0x61, 0x3d, 0xc0, 0xaf]), FORM, 'invalid');
  check('a form parameter twice', 'client_id=a&client_id=b', FORM, 'invalid');
  check('a bad form escape is taken as written', 'grant_type=%zz', FORM, fields({ grant_type: '%zz' }));
  check('text/plain', 'grant_type=client_credentials', 'text/plain', 'invalid');
  check('Basic without a colon', '', FORM, 'invalid', basic('nocolon'));
  check('Basic with a bad escape', '', FORM, 'invalid', basic('%E0%A4%A:b'));
  check('Basic that is not base64', '', FORM, 'invalid', 'Basic ***');
});
