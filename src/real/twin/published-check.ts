import { PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import type { GuaranteesData } from '../../sim/campaign/guarantees-data.js';
import { CONFIGURATIONS, TABLE_PROFILE } from '../../sim/run/configurations.js';
import { agreement, type FidelityMeasurement, type RowFidelity } from './fidelity.js';

type Rate = { readonly violated: number; readonly exercised: number };

/** A property of a published row next to its real twin: the published cell, the real rate, whether their intervals part. */
export interface PublishedCellCheck {
  readonly property: PropertyName;
  readonly published: Rate;
  readonly real: Rate;
  readonly verdict: 'agree' | 'simulator harsher' | 'simulator gentler';
}

/**
 * Where a fidelity row stands against the published guarantees (docs/GUARANTEES.json): a row of the
 * published profile with its cells checked against the real runs; a twin of a configuration of
 * another profile, which the page does not show (what it checks is the simulator, not a published
 * cell); or a row the published data lacks (measured before the row existed).
 */
export type PublishedStanding =
  | { readonly kind: 'published'; readonly runs: number; readonly cells: readonly PublishedCellCheck[] }
  | { readonly kind: 'other profile'; readonly profile: string; readonly sibling: string | null; readonly siblingHasTwin: boolean }
  | { readonly kind: 'not in the data' };

/** The same set-up and fault draw in the published profile: its configuration's name. */
function inPublishedProfile(name: string): string | null {
  const named = CONFIGURATIONS.find((c) => c.name === name);
  if (!named) return null;
  const base = named.profile === 'basic' ? named.name : named.name.slice(0, -`/${named.profile}`.length);
  return CONFIGURATIONS.find((c) => c.profile === TABLE_PROFILE && c.faults === named.faults && (c.name === base || c.name === `${base}/${TABLE_PROFILE}`))?.name ?? null;
}

/** One fidelity row against the published data; `twins`: the rows measured here. */
export function publishedStanding(r: RowFidelity, published: GuaranteesData, twins: ReadonlySet<string>): PublishedStanding {
  const profile = CONFIGURATIONS.find((c) => c.name === r.row)?.profile ?? TABLE_PROFILE;
  if (profile !== TABLE_PROFILE) {
    const sibling = inPublishedProfile(r.row);
    return { kind: 'other profile', profile, sibling, siblingHasTwin: sibling !== null && twins.has(sibling) };
  }
  const row = published.rows.find((p) => p.name === r.row);
  if (!row) return { kind: 'not in the data' };
  const cells = PROPERTY_NAMES.flatMap((property): PublishedCellCheck[] => {
    const cell = row.cells[property];
    const real = r.real[property];
    if (cell.exercised === 0 || real.exercised === 0) return [];
    const pub = { violated: cell.violated, exercised: cell.exercised };
    return [{ property, published: pub, real, verdict: agreement(pub, real) }];
  });
  return { kind: 'published', runs: row.runs, cells };
}

/** The published rows (the table's profile) and which of them have a real twin here. */
export function publishedTwins(m: FidelityMeasurement, published: GuaranteesData): { readonly withTwin: string[]; readonly without: string[] } {
  const measured = new Set(m.rows.map((r) => r.row));
  const rows = published.rows.filter((p) => p.profile === TABLE_PROFILE).map((p) => p.name);
  return { withTwin: rows.filter((n) => measured.has(n)), without: rows.filter((n) => !measured.has(n)) };
}
