import { parseSimConfig, type SimConfig } from '../run/config.js';
import type { NamedConfiguration } from '../run/configurations.js';

/** What a user chooses when deploying the queue: the options that move the table's verdicts. */
export interface SetupFacets {
  readonly topology: SimConfig['topology']['kind'];
  readonly mode: SimConfig['queue']['mode'];
  /** Dynomite's consistency on the quorum connection; null on a primary with replicas. */
  readonly consistency: string | null;
  readonly serverTime: boolean;
  /** Durable writes (WAIT) as `replicas/timeout ms`; null without. */
  readonly durable: string | null;
  /** What a node keeps across a crash: `memory only` unless the set-up persists. */
  readonly persistence: string;
  /** Whether clients move to the next zone when their node refuses them. */
  readonly failoverClient: boolean;
}

/** What a node keeps across a crash, by the topology's `persistence` setting. */
const PERSISTENCE_LABELS: Readonly<Record<string, string>> = { 'aof-always': 'AOF always', 'aof-everysec': 'AOF everysec' };
export const NO_PERSISTENCE = 'memory only';

/** A node's persistence and the supervisor rule that keeps a primary that restarted empty down, in words. */
function persistenceOf(topology: SimConfig['topology']): string {
  // Read loosely: the settings gain these fields with the persistence fault families.
  const t = topology as { readonly persistence?: string; readonly keepEmptyPrimaryDown?: boolean };
  const kept = t.persistence && t.persistence !== 'none' ? (PERSISTENCE_LABELS[t.persistence] ?? t.persistence) : null;
  const rule = t.keepEmptyPrimaryDown ? 'empty primary kept down' : null;
  return [kept, rule].filter((x) => x !== null).join(' + ') || NO_PERSISTENCE;
}

/** The facets of a parsed configuration. */
export function facetsOf(config: SimConfig): SetupFacets {
  const durable = config.queue.durable;
  return {
    topology: config.topology.kind,
    mode: config.queue.mode,
    consistency: config.topology.kind === 'dynomite' ? config.topology.quorumConsistency : null,
    serverTime: config.queue.serverTime,
    durable: durable ? `WAIT ${durable.replicas} replica${durable.replicas === 1 ? '' : 's'}, ${durable.timeoutMs} ms` : null,
    persistence: persistenceOf(config.topology),
    failoverClient: config.network.clientFailover,
  };
}

/** The set-up a configuration row measures, with its options (the workload profile is not one). */
export function setupOf(named: NamedConfiguration): { readonly name: string; readonly facets: SetupFacets } {
  const facets = facetsOf(parseSimConfig({ ...named.config, seed: 'facets' }));
  const base = named.profile === 'basic' ? named.setup : named.setup.slice(0, named.setup.length - named.profile.length - 1);
  return { name: facets.failoverClient ? `${base}+failover-client` : base, facets };
}

/** The options of a set-up in words: its consistency (Dynomite), its clock, and the ones that are on. */
export function optionsText(f: SetupFacets): string {
  const on = [
    f.consistency,
    f.serverTime ? 'server time' : 'client time',
    f.durable ? `durable (${f.durable})` : null,
    f.persistence !== NO_PERSISTENCE ? f.persistence : null,
    f.failoverClient ? 'failover client' : null,
  ].filter((x): x is string => x !== null);
  return on.join(', ');
}
