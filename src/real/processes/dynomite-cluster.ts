import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { RealProcessError } from '../real-process-error.js';
import { requireDynomiteBinary } from './dynomite-binary.js';
import { freePort } from './free-port.js';
import { startLinkProxy, type LinkDelays, type LinkProxy } from './link-proxy.js';
import { hasExited, killOwned, pauseOwned, resumeOwned, spawnOwned } from './owned-children.js';
import { withProbe } from './probe.js';
import { answersPing, startRedisServer, type RedisServer } from './redis-server.js';
import { until } from './until.js';

/**
 * A real Dynomite cluster: one `dynomite` per rack (one datacenter, token 0 each, so every rack
 * holds every key), each with its own redis-server as datastore, everything on 127.0.0.1 and free
 * ports. Every child is owned by PID (owned-children.ts): killed on stop, on a failed start, and
 * when this process exits.
 *
 * Every peer link crosses a proxy (link-proxy.ts), so that a partition can hold the bytes between
 * two nodes. Node i's seed for peer j is P(i→j), forwarding to j's `dyn_listen`. In Dynomite
 * (2046b05) a node sends its own requests to a peer only on connections it opened itself, to the
 * seed address (dyn_client.c → dnode_peer_get_conn, CONN_DNODE_PEER_SERVER); the connections it
 * accepts on `dyn_listen` (dyn_dnode_client.c, CONN_DNODE_PEER_CLIENT) only carry a peer's requests
 * in and their replies out (a same-DC request goes to the local datastore, never on). Gossip, the
 * other sender, is off (`enable_gossip` unset: false). So every byte from i to j crosses P(i→j)
 * upstream (i's requests) or P(j→i) downstream (i's replies to j's requests).
 */

export type DynomiteConsistency = 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM';

export interface DynomiteRack {
  readonly rack: string;
  /** The port clients use (Dynomite's `listen`). */
  readonly port: number;
  readonly peerPort: number;
  readonly url: string;
  readonly configFile: string;
  readonly logFile: string;
  /** The running Dynomite process; a new one after `startNode`. */
  readonly dynomite: ChildProcess;
  readonly redis: RedisServer;
}

interface DynomiteClusterOptions {
  readonly racks: number;
  /** Extra arguments of every rack's redis-server (e.g. an AOF fsynced on every write). */
  readonly redisArgs?: readonly string[];
  /** Delays on every peer link (default none: loopback): requests upstream, replies downstream. */
  readonly peerLinkDelays?: LinkDelays;
}

export interface DynomiteCluster {
  readonly racks: readonly DynomiteRack[];
  readonly dir: string;
  /** A raw ioredis client on rack `i`'s node at `consistency`, ready (tracked and closed by stop()). */
  client(i: number, consistency?: DynomiteConsistency): Promise<Redis>;
  /** A client on rack `i`'s redis itself, bypassing Dynomite. */
  backend(i: number): Redis;
  /** SIGKILL rack `i`'s Dynomite process. */
  killNode(i: number): Promise<void>;
  /**
   * Start rack `i`'s Dynomite again with its configuration and ports; resolves once it answers and it
   * and its running peers reach each other — or, with `waitForPeers: false`, once it answers PING (its
   * peer links come up about 100 ms later: DYNOMITE.md "Heals take time").
   */
  startNode(i: number, options?: { readonly waitForPeers?: boolean }): Promise<void>;
  /** SIGKILL rack `i`'s redis-server. */
  killBackend(i: number): Promise<void>;
  /** Start rack `i`'s redis-server again on its port and directory; `empty`: without its AOF. */
  restartBackend(i: number, options: { readonly empty: boolean }): Promise<void>;
  /** Rack `i`'s Dynomite and redis-server both run and neither is paused. */
  isServing(i: number): boolean;
  /** SIGSTOP / SIGCONT rack `i`'s Dynomite process (its connections stay open). */
  pauseNode(i: number): void;
  resumeNode(i: number): void;
  /** SIGSTOP / SIGCONT rack `i`'s redis-server (its connections stay open). */
  pauseBackend(i: number): void;
  resumeBackend(i: number): void;
  /**
   * Hold every byte rack `from`'s node sends rack `to`'s node (its requests and its replies), in
   * the proxies between them, until `unblockFlow`; what was held then arrives, in order, on the
   * connections that survived. The other direction is untouched (a one-way partition).
   */
  blockFlow(from: number, to: number): void;
  unblockFlow(from: number, to: number): void;
  log(i: number): string;
  stop(): Promise<void>;
}

const TOKEN = '0';
const DATACENTER = 'dc1';

interface RackPlan {
  readonly rack: string;
  readonly peerPort: number;
  readonly port: number;
  readonly statsPort: number;
}

function yaml(r: RackPlan & { readonly redisPort: number }, seeds: readonly string[]): string {
  return [
    'dyn_o_mite:',
    `  datacenter: ${DATACENTER}`,
    `  rack: ${r.rack}`,
    `  dyn_listen: 127.0.0.1:${r.peerPort}`,
    ...(seeds.length > 0 ? ['  dyn_seeds:', ...seeds.map((s) => `  - ${s}`)] : []),
    `  listen: 127.0.0.1:${r.port}`,
    '  servers:',
    `  - 127.0.0.1:${r.redisPort}:1`,
    `  tokens: '${TOKEN}'`,
    '  secure_server_option: none',
    '  data_store: 0',
    '  timeout: 5000',
    `  stats_listen: 127.0.0.1:${r.statsPort}`,
    '',
  ].join('\n');
}

function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').slice(-2_000) : '(no log)';
}

interface MutableRack extends Omit<DynomiteRack, 'dynomite'> {
  dynomite: ChildProcess;
}

export async function startDynomiteCluster(options: DynomiteClusterOptions): Promise<DynomiteCluster> {
  const binary = requireDynomiteBinary();
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-dynomite-'));
  const started: MutableRack[] = [];
  const clients: Redis[] = [];
  // `i>j`: P(i→j), the proxy node i reaches peer j through; kept for the cluster's life (a
  // restarted node reads the same configuration, so the same proxies).
  const links = new Map<string, LinkProxy>();
  const link = (from: number, to: number): LinkProxy => {
    const p = links.get(`${from}>${to}`);
    if (!p) throw new RealProcessError('unknown-zone', `no peer link ${from}→${to} (racks 0..${started.length - 1})`);
    return p;
  };
  let stopped = false;
  const stop = async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const r of started) {
      await killOwned(r.dynomite);
      await r.redis.stop();
    }
    for (const p of links.values()) await p.close();
    links.clear();
    if (!stopped) rmSync(dir, { recursive: true, force: true });
    stopped = true;
  };
  const spawnNode = (r: MutableRack) => spawnOwned(binary, ['-c', r.configFile, '-o', r.logFile, '-v', '5']);
  const rackAt = (i: number): MutableRack => {
    const r = started[i];
    if (!r) throw new RealProcessError('unknown-zone', `no rack ${i} (racks 0..${started.length - 1})`);
    return r;
  };
  const waitAnswering = (r: MutableRack) =>
    until(`dynomite ${r.rack} answering on ${r.port} (log ${r.logFile})`, 30_000, async () => {
      if (hasExited(r.dynomite)) throw new RealProcessError('start-failed', `dynomite ${r.rack} exited with ${r.dynomite.exitCode ?? r.dynomite.signalCode}: ${tail(r.logFile)}`);
      return answersPing(r.port);
    });
  // SIGSTOPped processes (a paused one answers nothing: it is not waited for).
  const paused = new Set<ChildProcess>();
  const isUp = (r: MutableRack) => !hasExited(r.dynomite) && !hasExited(r.redis.process) && !paused.has(r.dynomite) && !paused.has(r.redis.process);
  const pause = (child: ChildProcess) => {
    pauseOwned(child);
    paused.add(child);
  };
  const resume = (child: ChildProcess) => {
    resumeOwned(child);
    paused.delete(child);
  };
  const newClient = async (i: number, consistency: DynomiteConsistency) => {
    const c = new Redis({ host: '127.0.0.1', port: rackAt(i).port, disableClientInfo: true, maxRetriesPerRequest: 1, commandTimeout: 30_000, autoResendUnfulfilledCommands: false, retryStrategy: () => 100 });
    c.on('error', () => undefined);
    clients.push(c);
    await c.call('DYNO_CONFIG:CONN_CONSISTENCY', consistency);
    return c;
  };
  // A peer cut off from rack i either way (a partition in effect) is not waited for.
  const cutOff = (i: number, j: number) => i !== j && (link(i, j).isBlocked('upstream') || link(i, j).isBlocked('downstream') || link(j, i).isBlocked('upstream') || link(j, i).isBlocked('downstream'));
  // Rack i reaches every running peer when a write through it lands on each of their redis-servers.
  // A quorum write alone is not enough: it answers with one peer reached. A peer connection that
  // failed while the peers were starting is retried ~1 s later. A probe that did not arrive within
  // 1 s is tried again.
  let probes = 0;
  const reachesPeers = async (i: number): Promise<boolean> => {
    const key = `dynoq-real-ready-${i}-${probes++}`;
    const reachable = started.filter((r, j) => isUp(r) && !cutOff(i, j));
    const targets = reachable.map((r) => r.redis.port);
    const allReachable = reachable.length === started.filter(isUp).length;
    return withProbe(rackAt(i).port, async (c) => {
      await c.set(key, '1');
      try {
        await until(`probe ${key} on every redis`, 1_000, async () => {
          const held = await Promise.all(targets.map((port) => withProbe(port, (b) => b.exists(key))));
          return held.every((n) => n === 1);
        }, 20);
      } catch {
        return false;
      } finally {
        await c.del(key);
      }
      // Seen after a start: peer links that carry DC_ONE and DC_QUORUM writes while every
      // DC_SAFE_QUORUM write times out for seconds. Ready only once a safe-quorum write answers too
      // (not asked while a partition cuts a peer off: it may rightly time out then).
      if (!allReachable) return true;
      await c.call('DYNO_CONFIG:CONN_CONSISTENCY', 'DC_SAFE_QUORUM');
      const answered = (await c.set(key, '1').catch(() => null)) === 'OK';
      await c.del(key).catch(() => undefined);
      return answered;
    });
  };
  const waitReachingPeers = (racks: readonly number[]) =>
    until('every rack reaching its peers', 30_000, async () => {
      for (const i of racks) if (isUp(rackAt(i)) && !(await reachesPeers(i))) return false;
      return true;
    });
  try {
    const plan: RackPlan[] = [];
    for (let i = 0; i < options.racks; i++) plan.push({ rack: `rack${i + 1}`, peerPort: await freePort(), port: await freePort(), statsPort: await freePort() });
    for (const i of plan.keys()) {
      for (const [j, peer] of plan.entries()) if (i !== j) links.set(`${i}>${j}`, await startLinkProxy(peer.peerPort, options.peerLinkDelays));
    }
    for (const [i, p] of plan.entries()) {
      const redisDir = join(dir, `${p.rack}-redis`);
      mkdirSync(redisDir);
      const redis = await startRedisServer({ dir: redisDir, args: options.redisArgs ?? [] });
      const seeds = plan.flatMap((o, j) => (j === i ? [] : [`127.0.0.1:${link(i, j).port}:${o.rack}:${DATACENTER}:${TOKEN}`]));
      const configFile = join(dir, `${p.rack}.yml`);
      writeFileSync(configFile, yaml({ ...p, redisPort: redis.port }, seeds));
      const logFile = join(dir, `${p.rack}.log`);
      const rack: MutableRack = { rack: p.rack, port: p.port, peerPort: p.peerPort, url: `redis://127.0.0.1:${p.port}`, configFile, logFile, redis, dynomite: undefined as unknown as ChildProcess };
      rack.dynomite = spawnNode(rack);
      started.push(rack);
    }
    for (const r of started) await waitAnswering(r);
    await waitReachingPeers(started.map((_, i) => i));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    racks: started,
    dir,
    client: newClient,
    backend(i) {
      const c = new Redis({ host: '127.0.0.1', port: rackAt(i).redis.port, maxRetriesPerRequest: 1 });
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
    killNode: (i) => killOwned(rackAt(i).dynomite),
    async startNode(i, { waitForPeers = true } = {}) {
      const r = rackAt(i);
      await killOwned(r.dynomite);
      r.dynomite = spawnNode(r);
      try {
        await waitAnswering(r);
      } catch (err) {
        await killOwned(r.dynomite);
        throw err;
      }
      if (!waitForPeers) return;
      // Its peers' connections to it broke when it died: they must reach it again too.
      await waitReachingPeers([i, ...started.map((_, j) => j).filter((j) => j !== i)]);
    },
    killBackend: (i) => rackAt(i).redis.kill(),
    restartBackend: (i, { empty }) => rackAt(i).redis.restart({ empty }),
    isServing: (i) => isUp(rackAt(i)),
    pauseNode: (i) => pause(rackAt(i).dynomite),
    resumeNode: (i) => resume(rackAt(i).dynomite),
    pauseBackend: (i) => pause(rackAt(i).redis.process),
    resumeBackend: (i) => resume(rackAt(i).redis.process),
    // i's requests to j cross P(i→j) upstream; i's replies to j's requests cross P(j→i) downstream.
    blockFlow(from, to) {
      link(from, to).block('upstream');
      link(to, from).block('downstream');
    },
    unblockFlow(from, to) {
      link(from, to).unblock('upstream');
      link(to, from).unblock('downstream');
    },
    log: (i) => readFileSync(rackAt(i).logFile, 'utf8'),
    stop,
  };
}
