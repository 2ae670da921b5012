/**
 * What a node's disk keeps (`topology.persistence`), in Redis's words: no AOF and no snapshot, or an
 * append-only file fsynced before every reply (`appendfsync always`) or once a second (`everysec`).
 */
export const PERSISTENCE = ['none', 'aof-always', 'aof-everysec'] as const;
export type Persistence = (typeof PERSISTENCE)[number];

/** How a node's process ends: killed (its written file survives) or with its machine (only what was fsynced survives). */
export type NodeLoss = 'process-killed' | 'power-lost';

/** What a restart finds on the disk: all it acknowledged, what the last fsync reached, or nothing. */
export function diskKeeps(persistence: Persistence, loss: NodeLoss): 'all' | 'fsynced' | 'nothing' {
  if (persistence === 'none') return 'nothing';
  if (persistence === 'aof-always' || loss === 'process-killed') return 'all';
  return 'fsynced';
}

/** How often `aof-everysec` fsyncs, in ms of the node's true time. */
export const EVERYSEC_FSYNC_MS = 1_000;
