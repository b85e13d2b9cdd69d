// Goal: the listen streams' connection caps (SPEC Limits "WebSocket caps") count open sessions
// per organisation and per user, refuse with SPEC's frame word for word, and give a place back
// once (a second release is a no-op). Method: one ListenConnections, admissions and releases in order.
import t from 'tap';
import { ListenConnections, type ListenAdmission } from './listen-connections.ts';

const CAPS = { connectionsPerOrganization: 3, connectionsPerUser: 2 };
const connections = new ListenConnections();
function released(admission: ListenAdmission): { release(): void } {
  if (!('release' in admission)) throw new Error(`refused: ${admission.refused}`);
  return admission;
}

const ann1 = released(connections.admit('org', 'ann', CAPS));
released(connections.admit('org', 'ann', CAPS));
t.strictSame(connections.admit('org', 'ann', CAPS), {
  refused: '{"error":true,"reason":"websocket-limit-reached","scope":"user","limit":2,"message":"at most 2 concurrent stream connections per user; close one and connect again"}',
}, 'a third socket of one user: the user cap frame');
released(connections.admit('org', 'bob', CAPS));
t.strictSame(connections.admit('org', 'cy', CAPS), {
  refused: '{"error":true,"reason":"websocket-limit-reached","scope":"tenant","limit":3,"message":"at most 3 concurrent stream connections per organization; close one and connect again"}',
}, 'a fourth socket of the organisation: the tenant cap frame');
t.ok('release' in connections.admit('other', 'ann', CAPS), 'another organisation counts apart');
ann1.release();
ann1.release();
t.ok('release' in connections.admit('org', 'ann', CAPS), 'a released place is free again');
t.ok('refused' in connections.admit('org', 'dan', CAPS), 'released once only: the organisation is full again');
