import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { RealProcessError } from '../real-process-error.js';
import { requireDynomiteBinary } from './dynomite-binary.js';
import { freePort } from './free-port.js';
import { hasExited, killOwned, pauseOwned, resumeOwned, spawnOwned } from './owned-children.js';
import { withProbe } from './probe.js';
import { answersPing, startRedisServer, type RedisServer } from './redis-server.js';
import { until } from './until.js';

/**
 * A real Dynomite cluster: one `dynomite` per rack (one datacenter, token 0 each, so every rack
 * holds every key), each with its own redis-server as datastore, everything on 127.0.0.1 and free
 * ports. Every child is owned by PID (owned-children.ts): killed on stop, on a failed start, and
 * when this process exits.
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

export interface DynomiteClusterOptions {
  readonly racks: number;
  /** Extra arguments of every rack's redis-server (e.g. an AOF fsynced on every write). */
  readonly redisArgs?: readonly string[];
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
  /** Start rack `i`'s Dynomite again with its configuration and ports; resolves once it answers and it and its running peers reach each other. */
  startNode(i: number): Promise<void>;
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
  let stopped = false;
  const stop = async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const r of started) {
      await killOwned(r.dynomite);
      await r.redis.stop();
    }
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
  // Rack i reaches every running peer when a write through it lands on each of their redis-servers.
  // A quorum write alone is not enough: it answers with one peer reached. A peer connection that
  // failed while the peers were starting is retried ~1 s later. A probe that did not arrive within
  // 1 s is tried again.
  let probes = 0;
  const reachesPeers = async (i: number): Promise<boolean> => {
    const key = `dynoq-real-ready-${i}-${probes++}`;
    const targets = started.filter(isUp).map((r) => r.redis.port);
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
      // DC_SAFE_QUORUM write times out for seconds. Ready only once a safe-quorum write answers too.
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
    for (const [i, p] of plan.entries()) {
      const redisDir = join(dir, `${p.rack}-redis`);
      mkdirSync(redisDir);
      const redis = await startRedisServer({ dir: redisDir, args: options.redisArgs ?? [] });
      const seeds = plan.filter((_, j) => j !== i).map((o) => `127.0.0.1:${o.peerPort}:${o.rack}:${DATACENTER}:${TOKEN}`);
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
    async startNode(i) {
      const r = rackAt(i);
      await killOwned(r.dynomite);
      r.dynomite = spawnNode(r);
      try {
        await waitAnswering(r);
      } catch (err) {
        await killOwned(r.dynomite);
        throw err;
      }
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
    log: (i) => readFileSync(rackAt(i).logFile, 'utf8'),
    stop,
  };
}
