import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

/** A redis-server this test process started on a free loopback port, and stops. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
  /** SIGKILL, no shutdown: what a crash looks like. */
  kill(): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra redis-server arguments, e.g. ['--appendonly', 'yes', '--appendfsync', 'always']. */
  readonly args?: readonly string[];
  /** Reuse a data directory (restart with the same AOF). */
  readonly dir?: string;
  readonly port?: number;
}

export function redisServerBinary(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : null;
}

/** True when tests must fail rather than skip without Redis (CI sets REQUIRE_REDIS=1). */
export const redisRequired = process.env.REQUIRE_REDIS === '1';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitUntilAnswering(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} before answering`);
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') {
        probe.disconnect();
        return;
      }
    } catch {
      probe.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const port = options.port ?? (await freePort());
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'dynoq-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  const child = spawn(binary, [...args, ...(options.args ?? [])], { stdio: 'ignore' });
  await waitUntilAnswering(port, child);
  const cleanup = () => {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
      cleanup();
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

/** Inside a describe: a redis-server started before its tests and stopped after, and one client on it. */
export function useRedisClient(): { readonly client: Redis } {
  let server: RedisServer | undefined;
  const handle = { client: undefined as unknown as Redis };
  beforeAll(async () => {
    server = await startRedisServer();
    handle.client = new Redis({ host: '127.0.0.1', port: server.port });
  }, 20_000);
  afterAll(async () => {
    handle.client?.disconnect();
    await server?.stop();
  });
  return handle;
}
