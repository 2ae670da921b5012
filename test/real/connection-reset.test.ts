import { describe, expect, it } from 'vitest';
import type { RealCluster } from '../../src/real/cluster.js';
import { RealActor } from '../../src/real/twin/real-actor.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { connect } from '../../src/store/connect.js';
import { redisRequired, redisServerBinary, startRedisServer } from '../support/redis-server.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/**
 * The reset racer's fault on a real twin: the connection is reset while the armed request is in
 * flight, so its reply is lost and it fails at the command timeout (as a server's CLIENT KILL of a
 * request in flight does), the simulator's Connection.reset. A graceful close would let the reply in.
 */
describe.runIf(available)('a real twin resets a client connection mid-request', () => {
  it('the armed request fails at the command timeout; the next one goes through on the new connection', async () => {
    const server = await startRedisServer();
    const clients: ReturnType<typeof connect>[] = [];
    const cluster = {
      kind: 'primary-replica',
      zones: ['a'],
      client: () => {
        const c = connect(server.url);
        clients.push(c);
        return c;
      },
    } as unknown as RealCluster;
    try {
      const config = parseSimConfig({ topology: { kind: 'primary-replica', zones: ['a'] }, queue: { mode: 'atomic' }, workload: { consumers: 1 } });
      const actor = new RealActor('racer-0', 'a', config, cluster, false, () => undefined);
      await actor.queue.push([{ id: 'before', payload: 'p' }]);
      actor.resetConnectionAt(1);
      const started = Date.now();
      const armed = await actor.queue.push([{ id: 'armed', payload: 'p' }]).then(
        () => 'ok',
        (err: unknown) => (err as Error).message,
      );
      expect(armed).toMatch(/timed out/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
      expect(await actor.queue.push([{ id: 'after', payload: 'p' }])).toEqual(['after']);
      actor.crash();
    } finally {
      for (const c of clients) c.disconnect();
      await server.stop();
    }
  }, 30_000);

  it('a paused client hears no reply until its pause ends (client-pause)', async () => {
    const server = await startRedisServer();
    const clients: ReturnType<typeof connect>[] = [];
    const cluster = { kind: 'primary-replica', zones: ['a'], client: () => (clients.push(connect(server.url)), clients.at(-1)!) } as unknown as RealCluster;
    try {
      const config = parseSimConfig({ topology: { kind: 'primary-replica', zones: ['a'] }, queue: { mode: 'atomic' }, workload: { consumers: 1 } });
      const actor = new RealActor('consumer-0', 'a', config, cluster, false, () => undefined);
      await actor.queue.push([{ id: 'm', payload: 'p' }]);
      const started = Date.now();
      actor.pause(started + 800);
      expect(await actor.queue.get('m')).not.toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(750);
      actor.crash();
    } finally {
      for (const c of clients) c.disconnect();
      await server.stop();
    }
  }, 30_000);
});

