import { startDynomiteCluster as startCluster, type DynomiteCluster } from '../../src/real/processes/dynomite-cluster.js';

// The process code lives in src/real/processes; tests keep importing it from here.
export { dynomiteBinary } from '../../src/real/processes/dynomite-binary.js';
export type { DynomiteCluster, DynomiteRack } from '../../src/real/processes/dynomite-cluster.js';

/** True when tests must fail rather than skip without the Dynomite build (CI sets REQUIRE_DYNOMITE=1). */
export const dynomiteRequired = process.env.REQUIRE_DYNOMITE === '1';

/** `racks` racks × 1 node, redis-servers without persistence. */
export function startDynomiteCluster(racks = 3): Promise<DynomiteCluster> {
  return startCluster({ racks });
}
