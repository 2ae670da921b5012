import { afterEach, describe, expect, it } from 'vitest';
import type { RealCluster } from '../../src/real/cluster.js';
import { startRealCluster } from '../../src/real/start-cluster.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { SimWorld } from '../../src/sim/run/world.js';
import type { Connection } from '../../src/sim/store/connection.js';
import type { NodeReply } from '../../src/sim/store/store-op.js';
import { PrimaryReplicaTopology, SENTINEL_DEMOTION_MS, SENTINEL_PROMOTION_MS } from '../../src/sim/topology/primary-replica.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

/**
 * A primary killed and started again (from its AOF) past down-after but before Sentinel names the
 * replica it promotes, on redis-server/Sentinel and on the simulator: a client that reached the old
 * primary meanwhile stays on it after the promotion — it keeps the primary role — until Sentinel
 * demotes it about 10 s after naming the new one and closes its clients; a client that connects after
 * the promotion reaches the new primary. Skipped only when redis-server is absent and REQUIRE_REDIS
 * is not set.
 */
const redisAvailable = redisServerBinary() !== null;
if (!redisAvailable && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

const ZONES = ['a', 'b', 'c'];
const DOWN_AFTER_MS = 1_000;
const RESTART_AFTER_MS = 1_600;
const DISCOVERY_MS = 3_000;
const WATCH_MS = 16_000;

/** ms after the kill: when Sentinel named another primary, and when the client left the old primary (null: never). */
interface Timeline {
  readonly namedAt: number | null;
  readonly leftAt: number | null;
  /** Whether the client was on the old primary after its restart, and on it still when Sentinel named another. */
  readonly onOldAfterRestart: boolean;
  readonly onOldAtNaming: boolean;
  /** Where a client that first calls after the naming goes. */
  readonly newClientOnOld: boolean;
}

/** A timeline being watched: nothing seen yet. */
function watching(): { -readonly [K in keyof Timeline]: Timeline[K] } {
  return { namedAt: null, leftAt: null, onOldAfterRestart: false, onOldAtNaming: false, newClientOnOld: true };
}

let cluster: RealCluster | undefined;

async function realTimeline(): Promise<Timeline> {
  const c = (cluster = await startRealCluster({ kind: 'primary-replica', zones: ZONES, failoverDelayMs: DOWN_AFTER_MS, appendfsync: 'always' }));
  await new Promise((r) => setTimeout(r, DISCOVERY_MS));
  const old = (await c.primaryZone())!;
  const client = c.client('b', 'quorum');
  client.on('error', () => undefined);
  await client.set('k', '0');
  const oldPort = c.redisPort(old);
  const port = async (cl: typeof client): Promise<number | null> => {
    try {
      return Number(/tcp_port:(\d+)/.exec(String(await cl.info('server')))![1]);
    } catch {
      return null;
    }
  };
  const killedAt = Date.now();
  await c.crashNode(old);
  let restarted = false;
  const t = watching();
  while (Date.now() - killedAt < WATCH_MS && t.leftAt === null) {
    const now = Date.now() - killedAt;
    if (!restarted && now >= RESTART_AFTER_MS) {
      await c.restartNode(old, { empty: false });
      restarted = true;
    }
    const at = restarted ? await port(client) : null;
    if (at === oldPort) t.onOldAfterRestart = true;
    if (t.namedAt === null) {
      const named = await c.primaryZone().catch(() => null);
      if (named !== null && named !== old) {
        t.namedAt = Date.now() - killedAt;
        t.onOldAtNaming = (await port(client)) === oldPort;
        const fresh = c.client('c', 'quorum');
        fresh.on('error', () => undefined);
        t.newClientOnOld = (await port(fresh)) === oldPort;
        fresh.disconnect();
      }
    } else if (at !== null && at !== oldPort) t.leftAt = Date.now() - killedAt;
    await new Promise((r) => setTimeout(r, 25));
  }
  client.disconnect();
  return t;
}

async function simulatedTimeline(): Promise<Timeline> {
  const w = new SimWorld(parseSimConfig({ seed: 'sentinel-demotion', topology: { kind: 'primary-replica', zones: ZONES, failoverDelayMs: DOWN_AFTER_MS } }));
  const pr = w.topology as PrimaryReplicaTopology;
  const connection = (actor: string): Connection => ({ actor, zone: 'b', role: 'quorum', consistency: 'DC_ONE', nodeZone: 'b' }) as unknown as Connection;
  const call = async (conn: Connection, cmd: string, args: string[]): Promise<NodeReply> => {
    let reply: NodeReply | undefined;
    pr.handle(conn, { kind: 'cmd', cmd, args }, (r) => (reply = r));
    while (reply === undefined) await w.advance(1);
    return reply;
  };
  // Which server answers: only the old primary holds the key it was given after its restart.
  const onOld = async (conn: Connection) => {
    const r = await call(conn, 'hget', ['where', 'restarted']);
    return r.ok && r.value === 'old';
  };
  const client = connection('client');
  const old = pr.primary;
  const killedAt = w.kernel.now;
  pr.crash(old, false);
  let restarted = false;
  const t = watching();
  while (w.kernel.now - killedAt < WATCH_MS && t.leftAt === null) {
    if (!restarted && w.kernel.now - killedAt >= RESTART_AFTER_MS) {
      pr.restart(old);
      restarted = true;
      expect(await call(client, 'hset', ['where', 'restarted', 'old'])).toMatchObject({ ok: true });
    }
    const here = restarted ? await onOld(client) : false;
    if (here) t.onOldAfterRestart = true;
    if (t.namedAt === null) {
      if (pr.primary !== old) {
        t.namedAt = w.kernel.now - killedAt;
        t.onOldAtNaming = here;
        t.newClientOnOld = await onOld(connection('fresh'));
      }
    } else if (!here) t.leftAt = w.kernel.now - killedAt;
    await w.advance(25);
  }
  return t;
}

/** What both sides must show. */
function expectStaysUntilDemotion(t: Timeline): void {
  expect(t.onOldAfterRestart, 'the client reached the restarted old primary').toBe(true);
  expect(t.namedAt, 'Sentinel named another primary').not.toBeNull();
  expect(t.onOldAtNaming, 'still on the old primary when the new one was named').toBe(true);
  expect(t.newClientOnOld, 'a client connecting after the naming reaches the new primary').toBe(false);
  expect(t.leftAt, 'the client left the old primary at its demotion').not.toBeNull();
  const stayed = t.leftAt! - t.namedAt!;
  expect(stayed).toBeGreaterThanOrEqual(8_000);
  expect(stayed).toBeLessThan(13_000);
}

describe('an old primary back before the promotion keeps its clients until Sentinel demotes it, on the simulator', () => {
  it(`they leave it SENTINEL_DEMOTION_MS (${SENTINEL_DEMOTION_MS} ms) after the promotion; a new client goes to the promoted replica`, async () => {
    const t = await simulatedTimeline();
    expectStaysUntilDemotion(t);
    expect(t.namedAt!).toBeGreaterThanOrEqual(DOWN_AFTER_MS + SENTINEL_PROMOTION_MS);
    expect(t.leftAt! - t.namedAt!).toBeGreaterThan(SENTINEL_DEMOTION_MS - 50);
    expect(t.leftAt! - t.namedAt!).toBeLessThan(SENTINEL_DEMOTION_MS + 50);
  });
});

describe.runIf(redisAvailable)('an old primary back before the promotion keeps its clients until Sentinel demotes it, on redis-server/Sentinel', () => {
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('a Sentinel client stays on it 8–13 s after the naming (the simulator: SENTINEL_DEMOTION_MS); a new client goes to the promoted replica', async () => {
    const r = await realTimeline();
    expectStaysUntilDemotion(r);
    const s = await simulatedTimeline();
    expect(Math.abs(s.leftAt! - s.namedAt! - (r.leftAt! - r.namedAt!))).toBeLessThan(2_000);
  }, 60_000);
});
