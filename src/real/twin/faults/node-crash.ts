import type { FaultOfFamily } from '../../../sim/faults/index.js';
import { processCrash } from './process-crash.js';

/** SIGKILL of a zone's node (Dynomite, or Redis primary/replica) and its restart, empty or from its AOF. */
export const nodeCrash = processCrash<FaultOfFamily<'node-crash'>>('node', (f) => (f.kind === 'crash-node' ? f.loseUnreplicated : undefined));
