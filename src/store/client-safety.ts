import type { Cluster, Redis } from 'ioredis';

interface SafetyOptions {
  readonly autoResendUnfulfilledCommands?: boolean;
  readonly commandTimeout?: number;
}

/**
 * What in an ioredis client's settings can make a queue call run twice or hang. Empty: the client
 * keeps the queue's promises. Reads the options ioredis keeps on the client (Redis, Sentinel-backed
 * Redis, or Cluster and the options it gives its node connections).
 */
export function clientSafetyProblems(client: Redis | Cluster): string[] {
  const problems: string[] = [];
  const isCluster = (client as { isCluster?: boolean }).isCluster === true;
  const options = (client as unknown as { options?: Record<string, unknown> }).options ?? {};
  const node = (isCluster ? (options.redisOptions ?? {}) : options) as SafetyOptions;
  const where = isCluster ? 'redisOptions.' : '';
  if (node.autoResendUnfulfilledCommands !== false) {
    problems.push(
      `${where}autoResendUnfulfilledCommands is not false: after a reconnect ioredis re-sends commands that were in flight, so a script can run twice`,
    );
  }
  if (!(typeof node.commandTimeout === 'number' && node.commandTimeout > 0)) {
    problems.push(`${where}commandTimeout is not set: a call on a connection that died silently can wait forever`);
  }
  if (isCluster) {
    const retry = options.retryDelayOnFailover;
    if (typeof retry !== 'number' || retry > 0) {
      problems.push(
        'retryDelayOnFailover is not 0: the Cluster client re-sends a command whose connection closed ("Connection is closed."), which may already have run',
      );
    }
  }
  return problems;
}
