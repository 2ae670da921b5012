import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort, startRedisServer, type RedisServer } from './redis-server.js';

/**
 * A real Dynomite cluster for tests: one `dynomite` per rack (one datacenter), each with its own
 * redis-server as datastore, everything on 127.0.0.1 and free ports. The binary is the one
 * scripts/build-dynomite.sh built into `.cache/dynomite/<sha256 of the tarball>/dynomite`, or
 * $DYNOMITE_BIN. Every child is tracked by PID and killed on stop, on a failed start, and when this
 * process exits (any way Node still runs an 'exit' handler).
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DYNOMITE_TARBALL = process.env.DYNOMITE_TARBALL ?? resolve(root, '..', 'shared', 'vendor', 'dynomite-2046b05.tar.gz');

/** True when tests must fail rather than skip without the Dynomite build (CI sets REQUIRE_DYNOMITE=1). */
export const dynomiteRequired = process.env.REQUIRE_DYNOMITE === '1';

/** The built binary, or null when it is absent. */
export function dynomiteBinary(): string | null {
  const explicit = process.env.DYNOMITE_BIN;
  if (explicit) return existsSync(explicit) ? explicit : null;
  if (!existsSync(DYNOMITE_TARBALL)) return null;
  const sha = createHash('sha256').update(readFileSync(DYNOMITE_TARBALL)).digest('hex');
  const path = join(process.env.DYNOMITE_CACHE ?? join(root, '.cache', 'dynomite'), sha, 'dynomite');
  return existsSync(path) ? path : null;
}

/** Every child process started here and not yet reaped: killed by PID when this process exits. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) {
    try {
      if (c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.pid !== undefined) {
    try {
      process.kill(child.pid, 'SIGCONT'); // a paused process dies on SIGKILL too, but reap it cleanly
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await exited(child);
}

export interface DynomiteRack {
  readonly rack: string;
  /** The port clients use (Dynomite's `listen`). */
  readonly port: number;
  readonly peerPort: number;
  readonly url: string;
  readonly logFile: string;
  dynomite: ChildProcess;
  redis: RedisServer;
}

export interface DynomiteCluster {
  readonly racks: readonly DynomiteRack[];
  readonly dir: string;
  /** A raw ioredis client on rack `i`'s node at `consistency`, ready (tracked and closed by stop()). */
  client(i: number, consistency?: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM'): Promise<Redis>;
  /** A client on rack `i`'s redis itself, bypassing Dynomite. */
  backend(i: number): Redis;
  /** SIGKILL rack `i`'s Dynomite process. */
  killNode(i: number): Promise<void>;
  /** SIGKILL rack `i`'s redis-server. */
  killBackend(i: number): Promise<void>;
  /** SIGSTOP / SIGCONT rack `i`'s redis-server (its connections stay open). */
  pauseBackend(i: number): void;
  resumeBackend(i: number): void;
  log(i: number): string;
  stop(): Promise<void>;
}

const TOKEN = '0';

function yaml(r: { rack: string; peerPort: number; port: number; statsPort: number; redisPort: number }, seeds: string[]): string {
  return [
    'dyn_o_mite:',
    '  datacenter: dc1',
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

async function untilTrue(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startDynomiteCluster(racks = 3): Promise<DynomiteCluster> {
  const binary = dynomiteBinary();
  if (!binary) throw new Error('no Dynomite build: run scripts/build-dynomite.sh');
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-dynomite-'));
  const started: DynomiteRack[] = [];
  const clients: Redis[] = [];
  const stop = async () => {
    for (const c of clients) c.disconnect();
    for (const r of started) {
      await killHard(r.dynomite);
      await killHard(r.redis.process);
      await r.redis.stop().catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const plan = [];
    for (let i = 0; i < racks; i++) plan.push({ rack: `rack${i + 1}`, peerPort: await freePort(), port: await freePort(), statsPort: await freePort() });
    for (const [i, p] of plan.entries()) {
      const redis = await startRedisServer();
      track(redis.process);
      const seeds = plan.filter((_, j) => j !== i).map((o) => `127.0.0.1:${o.peerPort}:${o.rack}:dc1:${TOKEN}`);
      const conf = join(dir, `${p.rack}.yml`);
      writeFileSync(conf, yaml({ ...p, redisPort: redis.port }, seeds));
      const logFile = join(dir, `${p.rack}.log`);
      const dynomite = track(spawn(binary, ['-c', conf, '-o', logFile, '-v', '5'], { stdio: 'ignore' }));
      started.push({ rack: p.rack, port: p.port, peerPort: p.peerPort, url: `redis://127.0.0.1:${p.port}`, logFile, dynomite, redis });
    }
    for (const r of started) {
      await untilTrue(`dynomite ${r.rack} answering on ${r.port} (log ${r.logFile})`, 30_000, async () => {
        if (r.dynomite.exitCode !== null) throw new Error(`dynomite ${r.rack} exited with ${r.dynomite.exitCode}: ${readFileSync(r.logFile, 'utf8').slice(-2_000)}`);
        const probe = new Redis({ host: '127.0.0.1', port: r.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, disableClientInfo: true });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } finally {
          probe.disconnect();
        }
      });
    }
    const cluster: DynomiteCluster = {
      racks: started,
      dir,
      async client(i, consistency = 'DC_ONE') {
        const c = new Redis({ host: '127.0.0.1', port: started[i]!.port, disableClientInfo: true, maxRetriesPerRequest: 1, commandTimeout: 30_000, autoResendUnfulfilledCommands: false, retryStrategy: () => 100 });
        c.on('error', () => undefined);
        clients.push(c);
        await c.call('DYNO_CONFIG:CONN_CONSISTENCY', consistency);
        return c;
      },
      backend(i) {
        const c = new Redis({ host: '127.0.0.1', port: started[i]!.redis.port, maxRetriesPerRequest: 1 });
        c.on('error', () => undefined);
        clients.push(c);
        return c;
      },
      killNode: (i) => killHard(started[i]!.dynomite),
      killBackend: (i) => killHard(started[i]!.redis.process),
      pauseBackend: (i) => void process.kill(started[i]!.redis.process.pid!, 'SIGSTOP'),
      resumeBackend: (i) => void process.kill(started[i]!.redis.process.pid!, 'SIGCONT'),
      log: (i) => readFileSync(started[i]!.logFile, 'utf8'),
      stop,
    };
    // Every peer link up: a quorum write through each node answers.
    for (let i = 0; i < racks; i++) {
      const c = await cluster.client(i, 'DC_SAFE_QUORUM');
      await untilTrue(`rack ${i + 1} reaching its peers`, 30_000, async () => (await c.set(`ready-${i}`, '1')) === 'OK');
      await c.del(`ready-${i}`);
    }
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}
