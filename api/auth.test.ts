// Goal: the authenticator keeps the caller of a verified token by the token's text, and never
// past what the token allows: not past its exp, not past the kept time, not beyond its size,
// never a refused token. Method: createAuthenticator with real HS256 tokens (fast-jwt), a
// kept caller told apart from a fresh one by identity.
import t from 'tap';
import { createSigner } from 'fast-jwt';
import { AuthError, createAuthenticator, mintToken } from './auth.ts';

const secret = 'auth-test-secret';
const bearer = (token: string) => `Bearer ${token}`;
const tokenFor = (sub: string) => mintToken({ secret, organization: 'plant-a', sub, read: [1], write: [] });

t.test('a verified token is answered from memory with one frozen caller', async (t) => {
  const auth = createAuthenticator({ secret });
  const token = tokenFor('ann');
  const first = await auth.authenticate(bearer(token));
  t.same(first, { tenant: 'plant-a', sub: 'ann', datasetGrants: { read: [1], write: [] } });
  t.equal(await auth.authenticate(bearer(token)), first, 'the same caller again');
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.datasetGrants) && Object.isFrozen(first.datasetGrants?.read), 'shared, so frozen');
  t.not(await auth.authenticate(bearer(tokenFor('bob'))), first, 'another token, another caller');
});

t.test('a kept token is refused once it expires', async (t) => {
  const auth = createAuthenticator({ secret });
  const sign = createSigner({ key: secret });
  const expSeconds = Math.floor(Date.now() / 1000) + 1;
  const token = sign({ organization: 'plant-a', sub: 'ann', exp: expSeconds });
  await auth.authenticate(bearer(token));
  while (Date.now() <= expSeconds * 1000) await new Promise((resolve) => setTimeout(resolve, 50));
  await t.rejects(auth.authenticate(bearer(token)), new AuthError('The token has expired'));
});

t.test('a kept caller is verified again after the kept time', async (t) => {
  let nowMs = Date.now();
  const auth = createAuthenticator({ secret, nowMs: () => nowMs });
  const token = tokenFor('ann');
  const first = await auth.authenticate(bearer(token));
  nowMs += 599_000;
  t.equal(await auth.authenticate(bearer(token)), first, 'kept within 10 minutes');
  nowMs += 2_000;
  const again = await auth.authenticate(bearer(token));
  t.not(again, first, 'verified again past them');
  t.same(again, first);
});

t.test('the oldest kept token goes first when full; none is kept at size 0', async (t) => {
  const auth = createAuthenticator({ secret, verifiedTokensMax: 2 });
  const [one, two, three] = [tokenFor('one'), tokenFor('two'), tokenFor('three')];
  const first = await auth.authenticate(bearer(one));
  await auth.authenticate(bearer(two));
  const third = await auth.authenticate(bearer(three));
  t.equal(await auth.authenticate(bearer(three)), third, 'the newest is kept');
  t.not(await auth.authenticate(bearer(one)), first, 'the oldest was let go');
  const none = createAuthenticator({ secret, verifiedTokensMax: 0 });
  t.not(await none.authenticate(bearer(one)), await none.authenticate(bearer(one)));
});

t.test('a refused token is refused every time', async (t) => {
  const auth = createAuthenticator({ secret });
  const forged = createSigner({ key: 'another-secret', expiresIn: 60_000 })({ organization: 'plant-a', sub: 'ann' });
  for (let i = 0; i < 2; i++) await t.rejects(auth.authenticate(bearer(forged)), new AuthError('The token is malformed or its signature is invalid'));
  const badClaims = mintToken({ secret, organization: '', sub: 'ann' });
  for (let i = 0; i < 2; i++) await t.rejects(auth.authenticate(bearer(badClaims)), new AuthError('organization claim missing or not a string'));
  await t.rejects(auth.authenticate('Basic abc'), new AuthError('Missing bearer token: send Authorization: Bearer <JWT>'));
});
