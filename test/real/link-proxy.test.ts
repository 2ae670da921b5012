import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLinkProxy, type LinkDelays, type LinkProxy } from '../../src/real/processes/link-proxy.js';
import { until } from '../../src/real/processes/until.js';

/** A socket's received bytes as text, growing as they arrive. */
function received(socket: Socket): { text: () => string } {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { text: () => text };
}

/** A plain TCP server on 127.0.0.1 handing over each connection it accepts. */
async function target(): Promise<{ server: Server; port: number; accepted: () => Promise<Socket> }> {
  const waiting: ((s: Socket) => void)[] = [];
  const queued: Socket[] = [];
  const server = createServer((s) => {
    const w = waiting.shift();
    if (w) w(s);
    else queued.push(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, port, accepted: () => new Promise((r) => (queued.length > 0 ? r(queued.shift()!) : waiting.push(r))) };
}

const settle = () => new Promise((r) => setTimeout(r, 150));
const closed = (s: Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

describe('LinkProxy: a TCP proxy whose two directions block on their own', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const open = async (delays: LinkDelays = {}) => {
    const t = await target();
    const proxy: LinkProxy = await startLinkProxy(t.port, delays);
    const client = connect(proxy.port, '127.0.0.1');
    client.on('error', () => undefined);
    const server = await t.accepted();
    server.on('error', () => undefined);
    cleanup.push(() => new Promise((r) => t.server.close(r)), () => proxy.close(), () => client.destroy(), () => server.destroy());
    return { proxy, client, server, atServer: received(server), atClient: received(client), target: t };
  };

  it('forwards both ways; a blocked direction holds its bytes and releases them in order on unblock; the other keeps flowing', async () => {
    const { proxy, client, server, atServer, atClient } = await open();
    client.write('a');
    server.write('x');
    await until('both ways forwarded', 2_000, async () => atServer.text() === 'a' && atClient.text() === 'x', 10);

    proxy.block('upstream');
    expect(proxy.isBlocked('upstream')).toBe(true);
    client.write('b');
    client.write('c');
    server.write('y');
    await until('the open direction still flowing', 2_000, async () => atClient.text() === 'xy', 10);
    await settle();
    expect(atServer.text()).toBe('a');
    proxy.unblock('upstream');
    client.write('d');
    await until('held bytes released, then new ones', 2_000, async () => atServer.text() === 'abcd', 10);

    proxy.block('downstream');
    server.write('z1');
    server.write('z2');
    client.write('e');
    await until('upstream flowing', 2_000, async () => atServer.text() === 'abcde', 10);
    await settle();
    expect(atClient.text()).toBe('xy');
    proxy.unblock('downstream');
    await until('downstream released in order', 2_000, async () => atClient.text() === 'xyz1z2', 10);
  });

  it('a connection opened while blocked is held too; either side closing closes the other and drops what was held', async () => {
    const { proxy, client, server, atServer, target: t } = await open();
    proxy.block('upstream');
    const late = connect(proxy.port, '127.0.0.1');
    late.on('error', () => undefined);
    cleanup.push(() => late.destroy());
    const lateServer = await t.accepted();
    const atLate = received(lateServer);
    late.write('held');
    client.write('dropped');
    await settle();
    expect(atLate.text()).toBe('');

    server.end();
    await closed(client);
    proxy.unblock('upstream');
    await until('the surviving connection released', 2_000, async () => atLate.text() === 'held', 10);
    expect(atServer.text()).toBe('');
  });

  it('a delayed direction holds each chunk its drawn delay and never lets one overtake an earlier one; held bytes keep their order at release', async () => {
    // Upstream: 300 ms for the first chunk, 0 ms after it (a later, shorter draw must still wait).
    const draws = [300, 0, 0, 0, 0];
    const { proxy, client, server, atServer, atClient } = await open({ upstream: () => draws.shift() ?? 0 });
    const sent = performance.now();
    let firstAt = 0;
    server.once('data', () => (firstAt = performance.now()));
    client.write('a');
    await settle();
    client.write('b');
    server.write('x');
    await until('the undelayed direction flows at once', 2_000, async () => atClient.text() === 'x', 5);
    await until('both delayed chunks, in order', 2_000, async () => atServer.text() === 'ab', 5);
    expect(firstAt - sent).toBeGreaterThanOrEqual(290);

    proxy.block('upstream');
    client.write('c');
    await settle();
    proxy.unblock('upstream');
    client.write('d');
    await until('held then new, in order', 2_000, async () => atServer.text() === 'abcd', 5);
  });

  it("bytes on their way under a delay still arrive when their sender closes (a killed node's last requests), then the other side closes", async () => {
    const { client, server, atServer, atClient } = await open({ upstream: () => 300, downstream: () => 300 });
    client.write('request');
    client.end();
    await closed(server);
    expect(atServer.text()).toBe('request');

    const second = await open({ upstream: () => 300, downstream: () => 300 });
    second.server.write('reply');
    second.server.end();
    await closed(second.client);
    expect(second.atClient.text()).toBe('reply');
    expect(atClient.text()).toBe('');

    // A reset (a killed process with unread bytes in its socket) too: what it had sent was read already.
    const third = await open({ upstream: () => 300 });
    third.client.write('last');
    await settle();
    third.client.resetAndDestroy();
    await closed(third.server);
    expect(third.atServer.text()).toBe('last');
  });

  it('close() destroys every connection and stops listening', async () => {
    const { proxy, client, server } = await open();
    await proxy.close();
    await Promise.all([closed(client), closed(server)]);
    const refused = connect(proxy.port, '127.0.0.1');
    await expect(new Promise((resolve, reject) => refused.once('connect', resolve).once('error', reject))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
