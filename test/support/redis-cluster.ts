import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from './redis-server.js';

/** A Redis Cluster of `masters` cluster-enabled servers on loopback, joined with redis-cli. */
export interface RedisCluster {
  /** Every node's port (masters first as created; with replicas, redis-cli decides who replicates whom). */
  readonly ports: readonly number[];
  /** The servers, in the order of `ports` (to stop, kill or SIGSTOP one). */
  readonly servers: readonly RedisServer[];
  stop(): Promise<void>;
}

export function redisCliAvailable(): boolean {
  return spawnSync('sh', ['-c', 'command -v redis-cli'], { encoding: 'utf8' }).status === 0;
}

export async function startRedisCluster(masters = 3, replicasPerMaster = 0): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  for (let i = 0; i < masters * (1 + replicasPerMaster); i++) {
    servers.push(await startRedisServer({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'] }));
  }
  const ports = servers.map((s) => s.port);
  const create = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (create.status !== 0) {
    for (const s of servers) await s.stop();
    throw new Error(`redis-cli --cluster create failed: ${create.stderr || create.stdout}`);
  }
  for (const port of ports) {
    const c = new Redis({ port, host: '127.0.0.1' });
    try {
      for (let i = 0; i < 200; i++) {
        if ((await c.cluster('INFO')).includes('cluster_state:ok')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      c.disconnect();
    }
  }
  return {
    ports,
    servers,
    async stop() {
      for (const s of servers) await s.stop();
    },
  };
}
