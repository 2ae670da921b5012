import type { FaultOfFamily } from '../../../sim/faults/index.js';
import { processCrash } from './process-crash.js';

/** SIGKILL of the redis-server behind a zone's Dynomite node and its restart, empty or from its AOF. */
export const backendCrash = processCrash<FaultOfFamily<'backend-crash'>>('backend', (f) => (f.kind === 'crash-backend' ? f.loseData : undefined));
