import type { RealCluster } from './cluster.js';
import { RealProcessError } from './real-process-error.js';
import { startDynomiteRealCluster, type DynomiteSpec } from './dynomite-real-cluster.js';
import { startPrimaryReplicaCluster, type PrimaryReplicaSpec } from './primary-replica-cluster.js';

/** The real processes of a topology: what a real twin of a simulated run runs on. */
type RealClusterSpec = PrimaryReplicaSpec | DynomiteSpec;

/**
 * A free port is found by binding it and letting it go; another process on the machine may take it
 * before the server binds it (seen: Dynomite's stats port, "Address already in use", while a test
 * suite ran beside a fidelity run). A start that failed so is tried again on new ports.
 */
const START_ATTEMPTS = 3;

/** Start the processes of `spec` on loopback and wait until they serve; on failure none is left running. */
export async function startRealCluster(spec: RealClusterSpec): Promise<RealCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (spec.kind === 'primary-replica' ? startPrimaryReplicaCluster(spec) : startDynomiteRealCluster(spec));
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !(err instanceof RealProcessError && err.code === 'start-failed')) throw err;
    }
  }
}
