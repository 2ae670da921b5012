import { startSentinel as startOne, type RedisSentinel } from '../../src/real/processes/sentinel.js';

export type { RedisSentinel } from '../../src/real/processes/sentinel.js';

/**
 * One Sentinel on loopback watching `masterPort` as group `name`, quorum 1, with short timings so a
 * test sees a failover in seconds: down after 1 s, failover timeout 5 s.
 */
export function startSentinel(masterPort: number, name = 'mymaster'): Promise<RedisSentinel> {
  return startOne({ masterPort, name, quorum: 1, downAfterMs: 1_000, failoverTimeoutMs: 5_000 });
}
