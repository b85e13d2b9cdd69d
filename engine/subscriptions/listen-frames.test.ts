// Goal: the client frames of the listen streams are checked as SPEC "Subscription stream"
// says: an object with an `action`, lists of at most 10,000 ids, messageIds of the form
// `<subscription id>.<sequence>` (anything else ignored), and the bad-request frame's shape.
// Method: one line per case through each checker.
import t from 'tap';
import { badRequestFrame, clientFrame, FRAME_IDS_MAX, identifiersOf, messageRefs, stringList } from './listen-frames.ts';

const frame = (json: unknown) => clientFrame({ json });
t.strictSame(frame({ action: 'ack', messageIds: [] }), { action: 'ack', messageIds: [] });
for (const bad of [null, [], 'ack', 1, {}, { action: 1 }]) t.equal(frame(bad), 'the frame is not an object with an `action`', JSON.stringify(bad));
t.equal(clientFrame({ unreadable: 'the frame is not JSON' }), 'the frame is not JSON', 'an unreadable frame keeps its reason');

const list = (value: unknown) => stringList({ action: 'add', externalIds: value }, 'externalIds');
t.strictSame(list(['a', 'b']), ['a', 'b']);
t.strictSame(list(Array(FRAME_IDS_MAX).fill('a')).length, FRAME_IDS_MAX, 'at the limit');
for (const bad of [Array(FRAME_IDS_MAX + 1).fill('a'), ['a', 1], 'a', undefined]) t.equal(list(bad), '`externalIds` must be a list of at most 10000 strings');

const items = (value: unknown) => identifiersOf({ action: 'add', items: value });
t.strictSame(items([{ id: 1 }, { externalId: 'x' }, { id: 2, externalId: 'y' }]), [{ id: 1 }, { externalId: 'x' }, { id: 2, externalId: 'y' }]);
for (const bad of [[{}], [{ id: 1.5 }], [{ externalId: 1 }], [null], {}, Array(FRAME_IDS_MAX + 1).fill({ id: 1 })]) {
  t.equal(items(bad), '`items` must be a list of at most 10000 { id } or { externalId }');
}

t.strictSame(messageRefs(['12.34', '1.2.3', 'x', '', '1.', '.1', `${'9'.repeat(17)}.1`]), [{ subscriptionId: 12, seq: '34' }], 'only well-formed ids count');
t.equal(badRequestFrame('why'), '{"error":true,"reason":"bad-request","message":"why"}');
