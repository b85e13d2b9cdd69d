// Goal: every refused answer becomes a readable sentence (401 with the reason, 403 feature off,
// 429 with the retry time from Retry-After or the body), never an empty string.
// Method: describeApiFailure over hand-made failures, one line per case.
import t from 'tap';
import { describeApiFailure, retryAfterSeconds, type ApiFailure } from './api-error-message.ts';

const NOW_MS = Date.UTC(2024, 0, 1, 12, 0, 0);
const failure = (status: number, body: unknown, retryAfterHeader: string | null = null): ApiFailure =>
  ({ status, body, retryAfterHeader, receivedAtMs: NOW_MS });
const check = (input: ApiFailure, expected: string) => t.equal(describeApiFailure(input), expected, expected);

check(failure(429, {}, '12'), 'Too many requests: retry in 12 s');
check(failure(429, { type: 'x/rate-limited', title: 'Too many', retryAfter: 3 }), 'Too many requests: retry in 3 s');
check(failure(429, { error: { message: 'slow down', retryAfter: 7 } }), 'Too many requests: retry in 7 s');
check(failure(429, undefined), 'Too many requests');
check(failure(429, undefined, new Date(NOW_MS + 30_000).toUTCString()), 'Too many requests: retry in 30 s');
check(failure(401, { error: { code: 401, message: 'token expired' } }), 'Your access token was refused: token expired');
check(failure(401, undefined), 'Your access token was refused');
check(failure(403, { error: { type: 'FeatureDisabledError', feature: 'files', message: 'off' } }), 'The files feature is not enabled for your organization');
check(failure(403, { error: { type: 'ForbiddenError', message: 'no read access to data set 4' } }), 'Not allowed: no read access to data set 4');
check(failure(404, { error: { message: 'no such resource' } }), 'Not found: no such resource');
check(failure(503, {}, '1'), 'The service is busy or a store is unavailable: retry in 1 s');
check(failure(500, 'oops'), 'The service failed (500)');
check(failure(400, { error: 'invalid_client', error_description: 'unknown client' }), 'Request refused (400): unknown client');
check(failure(400, { error: 'invalid_request' }), 'Request refused (400): invalid_request');

t.equal(retryAfterSeconds(failure(429, {}, 'garbage')), undefined, 'an unreadable header is no retry time');
t.equal(retryAfterSeconds(failure(429, {}, new Date(NOW_MS - 5_000).toUTCString())), 0, 'a past date is 0 s');
