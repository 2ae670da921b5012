import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePortPair } from '../../src/real/processes/free-port.js';
import { RealProcessError } from '../../src/real/real-process-error.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

/** A cluster node's bus listens this far above its port. */
const BUS_OFFSET = 10_000;

/**
 * A cluster-enabled redis-server on a port whose bus port is free too; a start that fails (a port
 * taken between the check and the bind by another test file's process) is retried on another pair.
 */
async function startClusterNode(): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisServer({ port: await freePortPair(BUS_OFFSET), args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'] });
    } catch (err) {
      if (attempt >= 5 || !(err instanceof RealProcessError && err.code === 'start-failed')) throw err;
    }
  }
}

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
    servers.push(await startClusterNode());
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

/** The master serving `key`'s slot and its replicas, read from CLUSTER NODES (after every replica met its master). */
export async function slotOwner(cluster: RedisCluster, key: string, replicasPerMaster: number): Promise<{ master: RedisServer; replicas: RedisServer[] }> {
  const probe = new Redis({ host: '127.0.0.1', port: cluster.ports[0]! });
  try {
    const slot = Number(await probe.cluster('KEYSLOT', key));
    const readNodes = async () => String(await probe.cluster('NODES')).trim().split('\n').map((l) => l.split(' '));
    let nodes = await readNodes();
    const masters = cluster.ports.length / (1 + replicasPerMaster);
    for (let i = 0; i < 200 && nodes.filter((n) => n[2]!.includes('slave')).length < masters * replicasPerMaster; i++) {
      await new Promise((r) => setTimeout(r, 50));
      nodes = await readNodes();
    }
    const server = (n: string[]) => cluster.servers[cluster.ports.indexOf(Number(n[1]!.split('@')[0]!.split(':')[1]))]!;
    const owns = (n: string[]) =>
      n.slice(8).some((r) => {
        const [a, b] = r.split('-').map(Number);
        return b === undefined ? a === slot : a! <= slot && slot <= b;
      });
    const master = nodes.find((n) => n[2]!.includes('master') && owns(n))!;
    return { master: server(master), replicas: nodes.filter((n) => n[2]!.includes('slave') && n[3] === master[0]).map(server) };
  } finally {
    probe.disconnect();
  }
}
