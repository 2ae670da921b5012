import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealProcessError } from '../real-process-error.js';
import { freePort } from './free-port.js';
import { hasExited, killOwned, spawnOwned } from './owned-children.js';
import { withProbe } from './probe.js';
import { until } from './until.js';

/** A redis-server on a free loopback port, owned by this process (see owned-children.ts). */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** The running child; a new one after `restart`. */
  readonly process: ChildProcess;
  /** SIGKILL and remove the directory if this server made it. */
  stop(): Promise<void>;
  /** SIGKILL, no shutdown: what a crash looks like. The directory stays for a restart. */
  kill(): Promise<void>;
  /** Start again on the same port, directory and arguments; `empty`: its AOF and RDB files deleted first. */
  restart(options?: { readonly empty?: boolean }): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra redis-server arguments, e.g. ['--appendonly', 'yes', '--appendfsync', 'always']. */
  readonly args?: readonly string[];
  /** Reuse a data directory (restart with the same AOF). */
  readonly dir?: string;
  readonly port?: number;
  /**
   * A configuration file to start from (before the arguments), which the server may rewrite
   * (`CONFIG REWRITE`, as Sentinel does after it changes a server's role).
   */
  readonly configFile?: string;
}

/** redis-server on PATH, or null. */
export function redisServerBinary(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : null;
}

export function requireRedisServerBinary(): string {
  const binary = redisServerBinary();
  if (!binary) throw new RealProcessError('redis-server-missing', 'redis-server is not installed (apt-get install -y redis-server)');
  return binary;
}

/** True when something on 127.0.0.1:port answers PING (a probe connection that never retries). */
export function answersPing(port: number): Promise<boolean> {
  return withProbe(port, async (probe) => (await probe.ping()) === 'PONG', 1_000);
}

export async function waitUntilAnswering(port: number, child: ChildProcess, what = 'redis-server'): Promise<void> {
  await until(`${what} on port ${port} answering`, 10_000, async () => {
    if (hasExited(child)) throw new RealProcessError('start-failed', `${what} on port ${port} exited (${child.exitCode ?? child.signalCode}) before answering`);
    return answersPing(port);
  }, 50);
}

/** Spawn and wait until it answers; SIGKILLed if it does not. */
export async function spawnAnswering(binary: string, args: readonly string[], port: number, what: string): Promise<ChildProcess> {
  const child = spawnOwned(binary, args);
  try {
    await waitUntilAnswering(port, child, what);
  } catch (err) {
    await killOwned(child);
    throw err;
  }
  return child;
}

/** The files a redis-server keeps its data in under `dir` (Redis 7: the AOF is a directory). */
function removeRedisData(dir: string): void {
  for (const name of ['appendonlydir', 'appendonly.aof', 'dump.rdb']) rmSync(join(dir, name), { recursive: true, force: true });
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = requireRedisServerBinary();
  const port = options.port ?? (await freePort());
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'dynoq-redis-'));
  // Defaults first: a later argument (e.g. `--appendonly yes`) wins.
  const args = [
    ...(options.configFile !== undefined ? [options.configFile] : []),
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    ...(options.args ?? []),
  ];
  const start = () => spawnAnswering(binary, args, port, 'redis-server');
  let child = await start().catch((err: unknown) => {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get process() {
      return child;
    },
    async stop() {
      await killOwned(child);
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
    async kill() {
      await killOwned(child);
    },
    async restart(restartOptions = {}) {
      await killOwned(child);
      if (restartOptions.empty) removeRedisData(dir);
      child = await start();
    },
  };
}
