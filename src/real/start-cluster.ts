import type { RealCluster } from './cluster.js';
import { startDynomiteRealCluster, type DynomiteSpec } from './dynomite-real-cluster.js';
import { startPrimaryReplicaCluster, type PrimaryReplicaSpec } from './primary-replica-cluster.js';

export type { DynomiteSpec } from './dynomite-real-cluster.js';
export type { PrimaryReplicaSpec } from './primary-replica-cluster.js';

/** The real processes of a topology: what a real twin of a simulated run runs on. */
export type RealClusterSpec = PrimaryReplicaSpec | DynomiteSpec;

/** Start the processes of `spec` on loopback and wait until they serve; on failure none is left running. */
export function startRealCluster(spec: RealClusterSpec): Promise<RealCluster> {
  return spec.kind === 'primary-replica' ? startPrimaryReplicaCluster(spec) : startDynomiteRealCluster(spec);
}
