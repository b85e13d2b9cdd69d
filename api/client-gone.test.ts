// Goal: ClientGone tells each listener once that the client left, in order, whatever one of
// them throws, and nothing after; a removed listener is not told. Method: plain calls.
import t from 'tap';
import { ClientGone } from './client-gone.ts';

t.test('each listener is told once, in order, and only then', async (t) => {
  const gone = new ClientGone();
  const heard: string[] = [];
  gone.onLeave(() => heard.push('body'));
  const stop = gone.onLeave(() => heard.push('removed'));
  gone.onLeave(() => heard.push('reply'));
  stop();
  t.equal(gone.aborted, false);
  t.same(heard, [], 'nothing before the client leaves');
  gone.leave();
  gone.leave();
  t.equal(gone.aborted, true);
  t.same(heard, ['body', 'reply'], 'once each, the removed one never');
  gone.onLeave(() => heard.push('late'));
  stop();
  t.same(heard, ['body', 'reply'], 'a listener added after the leave is never called');
});

t.test('a throwing listener does not keep the others from hearing; its error comes after', async (t) => {
  const gone = new ClientGone();
  const heard: number[] = [];
  gone.onLeave(() => heard.push(1));
  gone.onLeave(() => { throw new Error('first'); });
  gone.onLeave(() => { throw new Error('second'); });
  gone.onLeave(() => heard.push(4));
  t.throws(() => gone.leave(), new Error('first'));
  t.same(heard, [1, 4]);
  t.equal(gone.aborted, true);
});
