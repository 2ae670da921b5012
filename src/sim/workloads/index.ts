export { CONSUMER_LOOPS, PROFILE_NAMES, PROFILES, resolveProfile, type ConsumerLoop, type ProfileName, type ProfileSettings } from '../settings/workload-profile.js';
export { CONSUMER_LOOP_DRIVERS } from './consume-loops.js';
export { producerLoop } from './produce.js';
export { operatorLoop } from './operate.js';
export { METHOD_DRIVERS, DRIVEN_METHODS } from './coverage.js';
export type { WorkloadContext } from './context.js';
export { startWorkload, type SpawnActor, type StartedWorkload } from './start.js';
export type { WorkloadActor } from './context.js';
