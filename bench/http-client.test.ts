// Goal: the bench client never sends a request on a kept-alive socket the server may have
// closed while the bench's own synchronous work blocked the event loop (the full load rows'
// "socket hang up" on the filter page: uWS closes idle connections after 8 to 12 s, the
// requests are built in one 5 to 9 s synchronous loop). Method: a raw TCP server answers
// keep-alive HTTP and can close a connection; the test closes it and sends the next request
// in the same turn, before the client could handle the close, which is what a blocked event
// loop does. With the idle bound at 0 the free socket is stale and a new one is used; with
// the bound far away the same sequence is the hang-up; under the bound sockets are reused.
import net from 'node:net';
import t, { type Test } from 'tap';
import { HttpClient } from './http-client.ts';

async function keepAliveServer(t: Test): Promise<{ url: string; connections: net.Socket[] }> {
  const connections: net.Socket[] = [];
  const server = net.createServer((conn) => {
    connections.push(conn);
    let head = '';
    conn.on('data', (chunk) => {
      head += chunk.toString('latin1');
      while (head.includes('\r\n\r\n')) {
        head = head.slice(head.indexOf('\r\n\r\n') + 4);
        conn.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      }
    });
    conn.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const conn of connections) conn.destroy();
    server.close();
  });
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections };
}

/** One answered request, then the server closes that connection and the next request goes out in the same turn. */
async function requestAfterServerClose(t: Test, freeSocketIdleMsMax: number): Promise<{ outcome: string; connectionCount: number }> {
  const server = await keepAliveServer(t);
  const client = new HttpClient(server.url, { freeSocketIdleMsMax });
  t.teardown(() => client.close());
  const first = await client.request('GET', '/first');
  t.equal(first.status, 200, 'first answer');
  server.connections[0]?.destroy(); // the fd is closed now: the client's kernel has the FIN
  const outcome = await client.request('GET', '/second').then((a) => `status ${a.status}`, (error: Error) => error.message);
  return { outcome, connectionCount: server.connections.length };
}

t.test('a free socket past the idle bound is not reused: the request goes out on a new connection', async (t) => {
  t.same(await requestAfterServerClose(t, 0), { outcome: 'status 200', connectionCount: 2 });
});

t.test('without the bound, the same sequence is the hang-up the bound prevents', async (t) => {
  const { outcome, connectionCount } = await requestAfterServerClose(t, 3_600_000);
  t.match(outcome, /socket hang up|ECONNRESET/, outcome);
  t.equal(connectionCount, 1, 'the request went out on the closed connection');
});

t.test('under the bound, keep-alive reuses the connection', async (t) => {
  const server = await keepAliveServer(t);
  const client = new HttpClient(server.url, { freeSocketIdleMsMax: 3_600_000 });
  t.teardown(() => client.close());
  for (const path of ['/a', '/b', '/c']) t.equal((await client.request('GET', path)).status, 200, path);
  t.equal(server.connections.length, 1, 'one connection for three requests');
});
