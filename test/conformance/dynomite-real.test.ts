import { createConnection } from 'node:net';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../src/real/processes/until.js';
import { connect } from '../../src/store/connect.js';
import { dynomiteBinary, dynomiteRequired, startDynomiteCluster, type DynomiteCluster } from '../support/dynomite-cluster.js';
import { startDynomiteCluster as startCluster } from '../../src/real/processes/dynomite-cluster.js';
import { peerLinkDelays } from '../../src/real/twin/peer-link-delays.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { redisServerBinary } from '../support/redis-server.js';
import { CLIENT_FAILOVER_MS, CLIENT_SEES_DEATH_MS } from '../../src/sim/store/sim-store.js';

/**
 * Facts of test/sim/dynomite-facts.test.ts, run against the real Dynomite build (3 racks × 1 node,
 * each with its own redis-server, loopback). Skipped only when the build is absent and
 * REQUIRE_DYNOMITE is not set; CI builds it (scripts/build-dynomite.sh) and sets REQUIRE_DYNOMITE=1.
 */
const available = dynomiteBinary() !== null && redisServerBinary() !== null;
if (!available && dynomiteRequired) throw new Error('REQUIRE_DYNOMITE=1 but the Dynomite build (scripts/build-dynomite.sh) or redis-server is missing');

/** The error text of every storage failure (the simulator's DATASTORE_REFUSED). */
const STORAGE_TEXT = 'ERR Storage: Datastore refused connection';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)('Dynomite as measured, on the real build', () => {
  let cluster: DynomiteCluster | undefined;
  const start = async () => (cluster = await startDynomiteCluster(3));
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('DC_QUORUM votes on reply content: the local reply has no priority, two peers that agree outvote it', async () => {
    const c = await start();
    await c.backend(0).hset('h', 'f', 'local');
    await c.backend(1).hset('h', 'f', 'peer');
    await c.backend(2).hset('h', 'f', 'peer');
    expect(await (await c.client(0, 'DC_QUORUM')).hget('h', 'f')).toBe('peer');
    expect(await (await c.client(0, 'DC_ONE')).hget('h', 'f')).toBe('local');
  }, 60_000);

  it('a dead redis: the write is answered with "Datastore refused connection" and both peers applied it', async () => {
    const c = await start();
    const one = await c.client(0, 'DC_ONE');
    await c.killBackend(0);
    await expect(one.hset('h', 'f', 'v')).rejects.toThrow(STORAGE_TEXT);
    await new Promise((r) => setTimeout(r, 300));
    expect([await c.backend(1).hget('h', 'f'), await c.backend(2).hget('h', 'f')]).toEqual(['v', 'v']);
  }, 60_000);

  it('a redis paused past the 5 s datastore timeout drops the requests queued behind the first ~32 KB; they never run on resume', async () => {
    const c = await start();
    const one = await c.client(0, 'DC_ONE');
    c.pauseBackend(0);
    const field = (i: number) => `f${String(i).padStart(5, '0')}`;
    // 2,000 HSETs of 40 bytes each on the wire, as in the simulated fact.
    const replies = Array.from({ length: 2_000 }, (_, i) => one.hset('h', field(i), 'v').then(() => 'ok', (e: Error) => e.message));
    expect(new Set(await Promise.all(replies))).toEqual(new Set([STORAGE_TEXT]));
    c.resumeBackend(0);
    await new Promise((r) => setTimeout(r, 1_000));
    const ran = (await c.backend(0).hkeys('h')).sort();
    // The peers ran every write; the paused replica a prefix of them (921 in the measurement the
    // simulator's RUN_ON_RESUME_BYTES rests on), the rest never.
    expect(await c.backend(1).hlen('h')).toBe(2_000);
    expect(await c.backend(2).hlen('h')).toBe(2_000);
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.length).toBeLessThan(2_000);
    expect(ran).toEqual(Array.from({ length: ran.length }, (_, i) => field(i)));
  }, 60_000);

  it('a coordinator killed while writing: each survivor holds an in-order prefix of its writes, never a gap', async () => {
    // On an idle machine the two survivors hold the same writes (16/16 in DYNOMITE.md, 6/6 here);
    // on a loaded one a peer that reads slower leaves a backlog in the coordinator that dies with it,
    // so the prefixes may differ (seen once in CI: hundreds of writes apart). Asserted is what held
    // in every run: whole prefixes in the connection's order, never a gap.
    const c = await start();
    const one = await c.client(0, 'DC_ONE');
    const writes = Array.from({ length: 2_000 }, (_, i) => one.hset('h', `f${i}`, 'v').catch(() => undefined));
    await new Promise((r) => setTimeout(r, 20));
    await c.killNode(0);
    await Promise.all(writes);
    await new Promise((r) => setTimeout(r, 1_000));
    const prefix = (keys: string[]) => Array.from({ length: keys.length }, (_, i) => `f${i}`);
    const byIndex = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1));
    for (const i of [1, 2]) {
      const keys = (await c.backend(i).hkeys('h')).sort(byIndex);
      expect(keys).toEqual(prefix(keys));
    }
  }, 60_000);
  it('DYNO_CONFIG:CONN_CONSISTENCY discards whatever follows it in the same read: never run, never answered', async () => {
    const c = await start();
    const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
    const socket = createConnection(c.racks[0]!.port, '127.0.0.1');
    let replies = '';
    socket.on('data', (d) => (replies += d.toString()));
    await new Promise((r) => socket.once('connect', r));
    socket.write(resp('DYNO_CONFIG:CONN_CONSISTENCY', 'DC_ONE') + resp('SET', 'dropped', '1') + resp('EXISTS', 'x'));
    await new Promise((r) => setTimeout(r, 1_000));
    socket.write(resp('GET', 'dropped'));
    await new Promise((r) => setTimeout(r, 500));
    socket.destroy();
    // +OK for the level; nothing for SET and EXISTS; the later GET finds nothing: SET never ran.
    expect(replies).toBe('+OK\r\n$-1\r\n');
  }, 60_000);

  it('connect(): every command right after ready is answered, and one queued before ready runs at the connection\'s level', async () => {
    const c = await start();
    await c.backend(0).set('k', 'local');
    await c.backend(1).set('k', 'peer');
    await c.backend(2).set('k', 'peer');
    const url = c.racks[0]!.url;
    const open: Redis[] = [];
    try {
      // Queued while connecting: sent after the level is answered, so the quorum vote decides.
      const early = connect(url, { dynomite: { consistency: 'DC_QUORUM' } }) as Redis;
      open.push(early);
      expect(await early.get('k')).toBe('peer');
      // Used right after ready (what the docs advise): before the level was held back, about 1 in 7
      // such connections had every call time out (measured: 3 of 20).
      const answers: (string | null)[] = [];
      for (let i = 0; i < 30; i++) {
        const client = connect(url, { dynomite: { consistency: 'DC_QUORUM' }, commandTimeout: 2_000 }) as Redis;
        client.on('error', () => undefined);
        open.push(client);
        await new Promise((r) => client.once('ready', r));
        answers.push(await client.get('k'), await client.get('k'));
      }
      expect(new Set(answers)).toEqual(new Set(['peer']));
    } finally {
      for (const client of open) client.disconnect();
    }
  }, 120_000);

  it('a healed partition releases what it held in order, per link: 300 appends through b reach c in b\'s order', async () => {
    const c = await start();
    const viaB = await c.client(1, 'DC_ONE');
    c.blockFlow(1, 2);
    c.blockFlow(2, 1);
    for (let i = 0; i < 300; i++) await viaB.append('s', `${i},`);
    await sleep(300);
    expect(await c.backend(2).get('s')).toBeNull();
    c.unblockFlow(1, 2);
    c.unblockFlow(2, 1);
    const all = Array.from({ length: 300 }, (_, i) => `${i},`).join('');
    await until('the held appends on c', 10_000, async () => (await c.backend(2).get('s'))?.length === all.length);
    expect(await c.backend(2).get('s')).toBe(all);
    expect(await c.backend(1).get('s')).toBe(all);
  }, 60_000);

  it('a resumed Dynomite works through each connection\'s backlog in turn, the one that began first first', async () => {
    const c = await start();
    const via = { a: await c.client(0, 'DC_ONE'), c: await c.client(2, 'DC_ONE') };
    for (const [order, last] of [['acaca', 'c3'], ['cacac', 'a3']] as const) {
      c.pauseNode(1);
      await sleep(100);
      for (const [i, z] of [...order].entries()) await via[z as 'a' | 'c'].set(`k${order}`, `${z}${i}`);
      await sleep(200);
      c.resumeNode(1);
      await sleep(1_000);
      // a and c ran them in the order they were sent; b one connection's backlog after the other.
      expect(await c.backend(0).get(`k${order}`)).toBe(`${order.at(-1)}${order.length - 1}`);
      expect(await c.backend(1).get(`k${order}`), order).toBe(last);
    }
  }, 60_000);

  it('who wins a DC_QUORUM tie: the first reply to arrive, the local one in most reads (the simulator\'s LOCAL_REPLY_FIRST_SHARE)', async () => {
    const c = await start();
    for (let i = 0; i < 3; i++) await c.backend(i).set('k', `v${i}`);
    const q = await c.client(0, 'DC_QUORUM');
    const wins = [0, 0, 0];
    for (let n = 0; n < 10; n++) for (const r of await Promise.all(Array.from({ length: 20 }, () => q.get('k')))) wins[Number(r!.slice(1))]!++;
    console.log(`dynomite: a DC_QUORUM tie, 200 GETs 20 at a time: local ${wins[0]}, peers ${wins[1]} and ${wins[2]}`);
    expect(wins[0]! + wins[1]! + wins[2]!).toBe(200);
    expect(wins[0]!).toBeGreaterThanOrEqual(100);
  }, 60_000);

  it('who wins a DC_QUORUM tie with the lan network on the peer links: the local reply, every time (the share above is loopback\'s)', async () => {
    const { network } = parseSimConfig({ seed: 'tie', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] } });
    cluster = await startCluster({ racks: 3, peerLinkDelays: peerLinkDelays('tie', network) });
    for (let i = 0; i < 3; i++) await cluster.backend(i).set('k', `v${i}`);
    const q = await cluster.client(0, 'DC_QUORUM');
    const wins = [0, 0, 0];
    for (let n = 0; n < 10; n++) for (const r of await Promise.all(Array.from({ length: 20 }, () => q.get('k')))) wins[Number(r!.slice(1))]!++;
    console.log(`dynomite, lan peer links: a DC_QUORUM tie, 200 GETs 20 at a time: local ${wins[0]}, peers ${wins[1]} and ${wins[2]}`);
    // A peer's reply needs a request and a reply across delayed links (at least 1 ms); the local redis answers in a fraction of that.
    expect(wins[0]!).toBeGreaterThanOrEqual(195);
  }, 60_000);

  it('heals take time: a restarted redis is served from Dynomite\'s next try, 1 s then 3 s after it died; refused until then', async () => {
    const c = await start();
    const one = await c.client(0, 'DC_ONE');
    for (const [downMs, retryMs] of [[300, 1_000], [1_500, 3_000]] as const) {
      await c.killBackend(0);
      const killed = Date.now();
      await sleep(downMs);
      await c.restartBackend(0, { empty: false });
      // Answers PING now; Dynomite refuses until its next try.
      if (Date.now() - killed < retryMs - 150) await expect(one.set('early', '1')).rejects.toThrow(STORAGE_TEXT);
      await until('the restarted redis served', 10_000, async () => (await one.set('k', '1').catch(() => null)) === 'OK', 5);
      const servedAfter = Date.now() - killed;
      console.log(`dynomite: redis down ${downMs} ms, served ${servedAfter} ms after the kill`);
      expect(servedAfter).toBeGreaterThanOrEqual(retryMs - 50);
      expect(servedAfter).toBeLessThan(retryMs + 600);
    }
  }, 60_000);

  it('heals take time: a restarted Dynomite\'s writes reach its peers at once; theirs reach it from their next try, every 1 s after it died', async () => {
    const c = await start();
    const viaPeer = await c.client(1, 'DC_ONE');
    await c.killNode(0);
    const killed = Date.now();
    await sleep(1_300);
    await c.startNode(0, { waitForPeers: false });
    const own = await c.client(0, 'DC_ONE');
    await own.set('own', '1');
    await viaPeer.set('early', '1');
    await until('a peer\'s write reaching the restarted node', 10_000, async () => {
      await viaPeer.set('late', String(Date.now()));
      await sleep(20);
      return (await c.backend(0).exists('late')) === 1;
    }, 5);
    const reachedAfter = Number(await c.backend(0).get('late')) - killed;
    console.log(`dynomite: a restarted node reached by its peers ${reachedAfter} ms after the kill (answered after ${1_300} ms down)`);
    expect(await c.backend(1).get('own')).toBe('1');
    expect(await c.backend(2).get('own')).toBe('1');
    expect(await c.backend(0).get('early')).toBeNull();
    expect(reachedAfter).toBeGreaterThanOrEqual(2_000 - 50);
    expect(reachedAfter).toBeLessThan(2_000 + 600);
  }, 60_000);
  // The simulated client of a dead node (test/sim/dynomite-facts.test.ts "a client whose node dies")
  // fails its calls in flight CLIENT_SEES_DEATH_MS after the death and, with failover, moves after
  // CLIENT_FAILOVER_MS: the real client, with connect()'s settings, within the measured 0.1–0.2 s.
  it("a client whose node dies: calls in flight fail within ~0.2 s with MaxRetriesPerRequestError, not after the request timeout, and may have run", async () => {
    const c = await start();
    const client = connect(c.racks[0]!.url, { dynomite: { consistency: 'DC_QUORUM' } }) as Redis;
    client.on('error', () => undefined);
    try {
      await client.set('ready', '1');
      // Both peers paused: a DC_QUORUM write through rack 0 waits for their votes, in flight when rack 0 dies.
      c.pauseNode(1);
      c.pauseNode(2);
      const write = client.set('inflight', 'v').then(() => null, (err: unknown) => err);
      await sleep(50);
      await c.killNode(0);
      const killed = Date.now();
      const err = await write;
      const failedAfter = Date.now() - killed;
      console.log(`dynomite: a call in flight on a killed node failed ${failedAfter} ms after the kill (simulated: ${CLIENT_SEES_DEATH_MS} ms)`);
      expect(String(err)).toMatch(/MaxRetriesPerRequestError/);
      // The request timeout is 5 s: the failure comes from the reconnect cycle, long before it.
      expect(failedAfter).toBeLessThan(1_000);
      c.resumeNode(1);
      c.resumeNode(2);
      // Not "never sent": the write reached the peers before the coordinator died.
      await until('the in-flight write on both peers', 10_000, async () => (await c.backend(1).get('inflight')) === 'v' && (await c.backend(2).get('inflight')) === 'v');
    } finally {
      client.disconnect();
    }
  }, 60_000);

  it('the failover client moves to the next node within ~0.2 s of its node dying, idle included', async () => {
    const c = await start();
    const next = c.racks[1]!;
    const client = connect(c.racks[0]!.url, { dynomite: { consistency: 'DC_ONE', failover: [{ host: '127.0.0.1', port: next.port }] } }) as Redis;
    client.on('error', () => undefined);
    try {
      await client.set('k', 'before');
      // Idle from here: no call is in flight when the node dies.
      await c.killNode(0);
      const killed = Date.now();
      await until('the idle client ready on the next node', 5_000, async () => client.status === 'ready' && client.options.port === next.port, 5);
      const movedAfter = Date.now() - killed;
      console.log(`dynomite: an idle failover client moved ${movedAfter} ms after its node died (simulated: ${CLIENT_FAILOVER_MS} ms)`);
      expect(movedAfter).toBeLessThan(1_000);
      // and its next call is served by that node
      expect(await client.set('k', 'after')).toBe('OK');
      expect(await c.backend(1).get('k')).toBe('after');
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
