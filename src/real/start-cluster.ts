// PLACEHOLDER until the process layer lands (helper branch real-processes).
import type { RealCluster } from './cluster.js';
export type RealClusterSpec =
  | { readonly kind: 'primary-replica'; readonly zones: readonly string[]; readonly failoverDelayMs: number }
  | { readonly kind: 'dynomite'; readonly zones: readonly string[]; readonly quorumConsistency: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM'; readonly nonQuorumConsistency: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM' };
export let startRealCluster: (spec: RealClusterSpec) => Promise<RealCluster> = () => Promise.reject(new Error('not built'));
export function setStartRealCluster(f: typeof startRealCluster): void { startRealCluster = f; }
