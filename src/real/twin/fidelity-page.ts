import { PROPERTIES, PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import { wilson } from '../../sim/campaign/guarantees.js';
import type { GuaranteesData } from '../../sim/campaign/guarantees-data.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES } from '../../sim/faults/index.js';
import { TABLE_PROFILE } from '../../sim/run/configurations.js';
import { REAL_FAULT_FAMILIES } from './faults/index.js';
import { agreement, detectable, verdict, type FidelityMeasurement, type RowFidelity, type SeedPairs } from './fidelity.js';
import { publishedStanding, publishedTwins, type PublishedStanding } from './published-check.js';

const pct = (x: number) => `${Math.round(100 * x)} %`;
function rate(t: { violated: number; exercised: number }): string {
  if (t.exercised === 0) return 'not exercised';
  const w = wilson(t.violated, t.exercised);
  return `${t.violated}/${t.exercised} (${pct(w.low)}–${pct(w.high)})`;
}

/**
 * Why a row's simulated and real rates differ, where that was measured (shown under the row), and the
 * properties whose difference it accounts for: a difference on any other property of the row is not
 * explained by it.
 */
export interface Explanation {
  readonly properties: readonly PropertyName[];
  readonly text: string;
}
export type Explanations = Readonly<Record<string, Explanation>>;

const explains = (e: Explanations, row: string, property: PropertyName): boolean => e[row]?.properties.includes(property) ?? false;

/** Seed-by-seed cell: runs with the same verdict on both sides / runs both exercised (and who violated alone). */
function seedCell(p: SeedPairs | undefined): string {
  if (!p) return 'not measured';
  const n = p.both + p.simOnly + p.realOnly + p.neither;
  if (n === 0) return 'not exercised';
  return `${p.both + p.neither}/${n} (only simulated ${p.simOnly}, only real ${p.realOnly})`;
}

/** What a property's row could tell apart from the simulated rate with this many real runs. */
function detectCell(sim: { violated: number; exercised: number }, runs: number): string {
  if (sim.exercised === 0 || runs === 0) return '—';
  const d = detectable(sim, runs);
  const parts = [d.below !== null ? `≤ ${pct(d.below)}` : null, d.above !== null ? `≥ ${pct(d.above)}` : null].filter((x) => x !== null);
  return parts.length === 0 ? 'none' : `real ${parts.join(' or ')}`;
}

/** The smallest gap (percentage points) between the simulated rate and a real rate this row could tell apart. */
function smallestGap(r: RowFidelity): { gap: number; property: PropertyName } | null {
  let best: { gap: number; property: PropertyName } | null = null;
  for (const p of PROPERTY_NAMES) {
    const sim = r.simulated[p];
    const runs = r.real[p].exercised;
    if (sim.exercised === 0 || runs === 0) continue;
    const rate = sim.violated / sim.exercised;
    const d = detectable(sim, runs);
    for (const x of [d.above, d.below]) {
      if (x === null) continue;
      const gap = Math.abs(x - rate);
      if (!best || gap < best.gap) best = { gap, property: p };
    }
  }
  return best;
}

/** A property of a row that both sides exercised and that does not agree, with its verdict. */
interface Difference {
  readonly property: PropertyName;
  readonly verdict: 'simulator harsher' | 'simulator gentler';
}

function differences(r: RowFidelity): Difference[] {
  return PROPERTY_NAMES.flatMap((p) => {
    if (r.real[p].exercised === 0 || r.simulated[p].exercised === 0) return [];
    const v = verdict(r.simulated[p], r.real[p], r.perSeed?.[p]);
    return v === 'agree' ? [] : [{ property: p, verdict: v }];
  });
}

/** Replicas equal at the end on the same seeds (simulated as happened, and real): whether the two counts' intervals part. */
function replicasVerdict(r: RowFidelity): 'agree' | 'simulator harsher' | 'simulator gentler' | null {
  if (!r.replicasEqual || r.realRuns === 0) return null;
  // A run whose replicas ended unequal counts as the violation, as for a property.
  const unequal = (equal: number) => ({ violated: r.realRuns - equal, exercised: r.realRuns });
  return agreement(unequal(r.replicasEqual.simulated), unequal(r.replicasEqual.real));
}

const rowsWord = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
const share = (t: { violated: number; exercised: number }) => (t.exercised === 0 ? 0 : t.violated / t.exercised);

/** By how much a property differs: the two rates, the gap, and the seeds one side alone violated. */
function differenceText(r: RowFidelity, d: Difference): string {
  const [sim, real] = [r.simulated[d.property], r.real[d.property]];
  const gap = Math.round(100 * (share(real) - share(sim)));
  const p = r.perSeed?.[d.property];
  const seeds = p ? `; seed by seed, only the simulator violated in ${p.simOnly} and only the real run in ${p.realOnly} of ${p.both + p.simOnly + p.realOnly + p.neither}` : '';
  return `${PROPERTIES[d.property].label} — ${d.verdict}: simulated ${pct(share(sim))} (${sim.violated}/${sim.exercised}), as happened ${pct(share(r.simulatedTwins[d.property]))}, real ${pct(share(real))} (${real.violated}/${real.exercised}), ${gap > 0 ? '+' : ''}${gap} points${seeds}`;
}

/** The page's opening verdict: which rows agree, which disagree and by how much, and what is explained. */
function summary(m: FidelityMeasurement, explanations: Explanations): string[] {
  const runs = m.rows.map((r) => r.realRuns);
  const agreeing = m.rows.filter((r) => differences(r).length === 0);
  const disagreeing = m.rows.filter((r) => differences(r).length > 0);
  const replicas = m.rows.filter((r) => { const v = replicasVerdict(r); return v !== null && v !== 'agree'; });
  const lines = [
    '## Summary',
    '',
    `${rowsWord(m.rows.length)}, ${runs.length === 0 ? 0 : Math.min(...runs)}–${runs.length === 0 ? 0 : Math.max(...runs)} real runs each (${runs.reduce((a, b) => a + b, 0)} in all).`,
    '',
    `**Agree on every property (${rowsWord(agreeing.length)}):** ${agreeing.length === 0 ? 'none' : agreeing.map((r) => `\`${r.row}\``).join(', ')}.`,
    '',
    `**Disagree (${rowsWord(disagreeing.length)})**, each property that does, by how much (the simulator's rate on its ${m.options.simSeeds} seeds and on the real seeds with their schedule as it happened, the real rate, the gap in percentage points from simulated to real):`,
  ];
  if (disagreeing.length === 0) lines.push('', 'none.');
  else lines.push('');
  for (const r of disagreeing) {
    const ds = differences(r);
    const [explained, unexplained] = [ds.filter((d) => explains(explanations, r.row, d.property)), ds.filter((d) => !explains(explanations, r.row, d.property))];
    const labels = (list: typeof ds) => list.map((d) => PROPERTIES[d.property].label).join(', ');
    const why =
      unexplained.length === 0 ? 'explained in its section below' : explained.length === 0 ? '**not explained yet**' : `${labels(explained)} explained in its section below, ${labels(unexplained)} **not explained yet**`;
    lines.push(`- \`${r.row}\` (${r.realRuns} real runs; ${why}): ${ds.map((d) => differenceText(r, d)).join('. ')}.`);
  }
  if (replicas.length > 0) {
    lines.push('', `**Replicas equal at the end** (Dynomite rows, the same seeds on both sides) differ beyond the intervals on ${rowsWord(replicas.length)}: ${replicas.map((r) => `\`${r.row}\` simulated ${r.replicasEqual!.simulated}/${r.realRuns}, real ${r.replicasEqual!.real}/${r.realRuns} (${replicasVerdict(r)})`).join('; ')}.`);
  }
  return lines;
}

const names = (rows: readonly string[]) => rows.map((r) => `\`${r}\``).join(', ');

/** The published verdicts next to the real twins: which published rows have one, and how their cells compare. */
function publishedSection(m: FidelityMeasurement, published: GuaranteesData, explanations: Explanations): string[] {
  const { withTwin, without } = publishedTwins(m, published);
  const twins = new Set(m.rows.map((r) => r.row));
  const others = m.rows.filter((r) => publishedStanding(r, published, twins).kind === 'other profile');
  const older = published.rows.filter((p) => p.profile !== TABLE_PROFILE).length;
  const lines = [
    '## The published verdicts and their real twins',
    '',
    `The guarantees page ([GUARANTEES.md](GUARANTEES.md), data [GUARANTEES.json](GUARANTEES.json): \`${published.command}\`) measures and publishes the \`${TABLE_PROFILE}\` workload profile's rows${older > 0 ? ` (its data, measured when the table measured every profile, still holds ${rowsWord(older)} of another profile; the next regeneration drops them)` : ''}. ${withTwin.length} of its ${withTwin.length + without.length} published rows have a real twin here${withTwin.length > 0 ? `: ${names(withTwin)}` : ''}; the other ${without.length} have none.${others.length > 0 ? ` ${others.length} of the ${rowsWord(m.rows.length)} here are twins of configurations of another profile, which the table no longer measures: they compare the simulator with reality, not a published cell (each row's section says which).` : ''}`,
    '',
  ];
  const checked = m.rows.flatMap((r) => {
    const s = publishedStanding(r, published, twins);
    return s.kind === 'published' ? s.cells.map((c) => ({ row: r.row, runs: s.runs, ...c })) : [];
  });
  if (checked.length === 0) return [...lines, 'No published cell has a real twin to compare with.'];
  const differing = checked.filter((c) => c.verdict !== 'agree');
  // A published cell apart from its twin while the row's own measurement agrees with both — the
  // simulator on this page's seeds with the published rate, and seed by seed with the real runs — is
  // set apart by the twenty seeds the twin ran, not by a difference between simulator and reality.
  const bySeeds = (c: (typeof checked)[number]): boolean => {
    const r = m.rows.find((x) => x.row === c.row);
    return !!r && verdict(r.simulated[c.property], r.real[c.property], r.perSeed?.[c.property]) === 'agree' && agreement(r.simulated[c.property], c.published) === 'agree';
  };
  const why = (c: (typeof checked)[number]): 'text' | 'seeds' | null => (explains(explanations, c.row, c.property) ? 'text' : bySeeds(c) ? 'seeds' : null);
  const seedCells = differing.filter((c) => why(c) === 'seeds');
  const unexplainedCells = differing.filter((c) => why(c) === null);
  const unexplained = [...new Set(unexplainedCells.map((c) => c.row))];
  lines.push(
    `Each published cell (violating runs / runs that exercised the property, over the published row's seeds) next to the real runs of its twin: **agree** when the 95 % intervals overlap, else the side that breaks the property more often (the seeds differ, so there is no seed-by-seed test here), and whether the row's section explains why. ${differing.length} of ${checked.length} cells differ${differing.length === 0 ? '' : `: ${differing.length - unexplainedCells.length} explained${seedCells.length > 0 ? ` (${seedCells.length} by the seeds drawn: the row's own measurement agrees with the published rate and, seed by seed, with the real runs)` : ''}, ${unexplained.length === 0 ? 'none unexplained' : `${unexplainedCells.length} **not explained yet** (${names(unexplained)})`}`}.`,
    '',
    '| row | property | published | real | verdict |',
    '|---|---|---|---|---|',
  );
  for (const c of checked) {
    const differs = c.verdict.replace('simulator', 'published');
    lines.push(`| ${c.row} | ${PROPERTIES[c.property].label} | ${rate(c.published)} | ${rate(c.real)} | ${c.verdict === 'agree' ? 'agree' : `${differs}${{ text: ' (explained in its section)', seeds: " (the seeds drawn: on this page's seeds the simulator agrees with both)", none: ', **not explained yet**' }[why(c) ?? 'none']}`} |`);
  }
  return lines;
}

/** A row's line about the published page. */
function standingLine(s: PublishedStanding): string {
  if (s.kind === 'not in the data') return '**Published:** no: the published data has no row of this configuration (measured before it existed).';
  if (s.kind === 'other profile') {
    const sibling = s.sibling === null ? `has no configuration under the \`${TABLE_PROFILE}\` profile` : `under the \`${TABLE_PROFILE}\` profile (\`${s.sibling}\`) ${s.siblingHasTwin ? 'has a twin here' : 'has no real twin'}`;
    return `**Published:** no: a twin of the \`${s.profile}\` profile, which the guarantees table no longer measures; the same set-up and faults ${sibling}.`;
  }
  const differ = s.cells.filter((c) => c.verdict !== 'agree');
  return `**Published:** yes (${s.runs} runs): ${differ.length === 0 ? 'every cell both exercised agrees with the real runs' : differ.map((c) => `${PROPERTIES[c.property].label} published ${rate(c.published)}, real ${rate(c.real)} (${c.verdict.replace('simulator', 'published')})`).join('; ')}.`;
}

/**
 * docs/FIDELITY.md from a measurement; with the published guarantees data, each published cell that
 * has a real twin is checked against it and every row says whether it is published.
 */
export function formatFidelity(m: FidelityMeasurement, explanations: Explanations = {}, published: GuaranteesData | null = null): string {
  const twins = new Set(m.rows.map((r) => r.row));
  const noMeans = FAULT_FAMILY_NAMES.filter((f) => !REAL_FAULT_FAMILIES.includes(f)).map((f) => `${f} (${FAULT_FAMILIES[f].description})`);
  // What cannot run for real, from the families' means: a published row drawing it has no twin (every row here is one that can).
  const noTwin = `Faults with no real means here — ${noMeans.join('; ')} — and those a means refuses (a partition on a primary with replicas, whose links go through no proxy; a store node\'s clock) are not run: a row of the guarantees table whose draw has one (and every swarm, which draws them all) has no twin here, and a seed whose schedule has one is skipped and counted.`;
  const beforeLiveness = m.rows.filter((r) => !r.livenessRestartsAsHappened).length;
  const onLoopback = m.rows.filter((r) => r.replicasEqual !== null && !r.peerLinksConfigured).map((r) => `\`${r.row}\``);
  const peerLinksNote = onLoopback.length > 0 ? ` (not on ${onLoopback.join(', ')}: measured with the links on loopback)` : '';
  const lines = [
    '# Fidelity: the simulator next to real processes',
    '',
    `Generated by \`npm run fidelity\` (\`dynoq fidelity --runs ${m.options.realRuns} --sim-seeds ${m.options.simSeeds} --budget-minutes ${Math.round(m.options.budgetMs / 60_000)} --out docs/FIDELITY.md\`, the real runs shared between processes; data in docs/FIDELITY.json; \`--only ROW\` measures one row again into it); do not edit by hand.`,
    '',
    `Each row is a row of the guarantees table (docs/GUARANTEES.md) that has a real twin, run twice: on the simulator (${m.options.simSeeds} seeds), and as its **real twin** — the same configuration, workload profile and fault schedule on real processes on loopback (redis-server primary with two replicas and three Sentinels; or three Dynomite nodes built from the vendored Dynomite source by \`scripts/build-dynomite.sh\`, each with its own redis-server), in real time, judged by the same checker (\`dynoq sim --real\`). Loopback replicates in well under a millisecond, the simulated \`lan\` network in about 5 ms: so every Dynomite peer link runs through a proxy that holds each request the configuration's latency, a replicated one (a write or a script, not a read sent for a quorum vote) an exponential replication lag of its mean on top, and each reply one latency, as the simulator draws them but per link where the simulator draws one lag for all copies of a request (bytes never overtake each other on a link; \`--peer-links loopback\` runs the links as they are)${peerLinksNote}. A primary's replication and every client connection run on loopback as they are. Each row has at most ${m.options.realRuns} real runs (rows take turns until each process\'s time budget is spent).`,
    '',
    `A real run does not strike its faults exactly when drawn: a restart on a loaded machine takes seconds, and a fault waits for the one before it on the same process (a crash of a zone still restarting strikes once it is up). The twin records every fault **as it happened** — when it took effect, how long a partition or pause lasted, when each restart of the liveness phase answered again — and the simulator runs that schedule again on the same seed, each process kept down until its real restart: the column *simulated, as happened* and the **seed-by-seed** column compare the two run by run.${beforeLiveness > 0 ? ` ${beforeLiveness === m.rows.length ? 'Every row here was' : `${rowsWord(beforeLiveness)} here were`} measured before the twin recorded its liveness restarts: ${beforeLiveness === 1 ? 'its' : 'their'} re-simulations restart every process at the liveness start.` : ''}`,
    '',
    'A cell is *runs that violated the property / runs that exercised it (95 % Wilson interval)*. The seed-by-seed cell is *runs with the same verdict on both sides / runs both exercised*, with how many only the simulator or only reality violated. A property **agrees** only when both say so: the intervals of the simulated and the real rate overlap, **and** the seeds where one side alone violated are not significantly lopsided (McNemar\'s exact test, 5 %). Otherwise the verdict names the side that breaks the property more often: **simulator harsher** or **simulator gentler**. The column *could detect* says how far the real rate would have to be from the simulated one for the intervals to part with this many real runs: *agree* means "no difference larger than that", not proof of none.',
    '',
    `Real faults are real means: SIGKILL and a restart from the append-only file (or without it, for faults that lose data), SIGSTOP/SIGCONT, a client whose connections are closed, a client clock set off in its process, and on Dynomite a partition between two nodes held in a TCP proxy on each peer link (bytes held, delivered in order at the heal unless the connection closed meanwhile). On the failover-client rows the real clients are \`connect()\`'s opt-in zone-failover client, and a client-failover fault moves a client's connections to the other zone's node (its in-flight calls fail as on any reconnect). ${noTwin}`,
    '',
    'Both sides score a call by one rule, as its client sees it ([CHECKER.md](CHECKER.md) §1.2): on Dynomite a write answered with a refusal (an ack voted down to 0) may have run on another replica, and the client cannot tell, so every refusal a Dynomite node of more than one rack answered is **unknown**, on the simulator (which could know, but does not look) as on real processes; on a primary with replicas a refusal is a fail (an out-of-memory refusal too: Redis refuses the write before running it). ioredis\'s `MaxRetriesPerRequestError` is a fail only for a write it held in its offline queue (never sent); on a write made while the connection was ready it is unknown (it was in flight: seen applied on every backend), and the simulator fails the calls in flight on a node that died with the same error and the same score.',
    '',
    ...summary(m, explanations),
    '',
    '| row | real runs | smallest difference it could detect | properties that disagree |',
    '|---|---|---|---|',
  ];
  for (const r of m.rows) {
    const disagree = PROPERTY_NAMES.filter((p) => r.real[p].exercised > 0 && r.simulated[p].exercised > 0 && verdict(r.simulated[p], r.real[p], r.perSeed?.[p]) !== 'agree');
    const gap = smallestGap(r);
    lines.push(
      `| ${r.row} | ${r.realRuns} | ${gap ? `${Math.round(100 * gap.gap)} points (${PROPERTIES[gap.property].label})` : 'none'} | ${disagree.length === 0 ? 'none (agree)' : disagree.map((p) => `${PROPERTIES[p].label}: ${verdict(r.simulated[p], r.real[p], r.perSeed?.[p])}`).join('; ')} |`,
    );
  }
  if (published) lines.push('', ...publishedSection(m, published, explanations));
  for (const r of m.rows) {
    lines.push('', `## ${r.row}`, '', `${r.description}. ${r.simSeeds} simulated seeds; ${r.realRuns} real run(s), ${r.realSeconds} s on real processes${r.skipped > 0 ? `; ${r.skipped} seed(s) skipped (a fault with no real means)` : ''}.`, '');
    lines.push('| property | simulated | simulated, as happened | real | seed by seed | could detect | verdict |', '|---|---|---|---|---|---|---|');
    for (const p of PROPERTY_NAMES) {
      const v = r.real[p].exercised === 0 || r.simulated[p].exercised === 0 ? 'not compared (not exercised)' : verdict(r.simulated[p], r.real[p], r.perSeed?.[p]);
      lines.push(`| ${PROPERTIES[p].label} | ${rate(r.simulated[p])} | ${rate(r.simulatedTwins[p])} | ${rate(r.real[p])} | ${seedCell(r.perSeed?.[p])} | ${detectCell(r.simulated[p], r.real[p].exercised)} | ${v} |`);
    }
    if (r.replicasEqual) lines.push('', `Replicas equal at the end: simulated ${r.replicasEqual.simulated}/${r.realRuns} (same seeds, as happened), real ${r.replicasEqual.real}/${r.realRuns}.`);
    if (r.faultErrors.length > 0) lines.push('', `Real runs not counted or faults that failed to strike: ${r.faultErrors.join('; ')}.`);
    const standing = published ? publishedStanding(r, published, twins) : null;
    if (standing) lines.push('', standingLine(standing));
    // An explanation stands under a row only while the row (or its published cells) differs: a mechanism found on one run is no verdict on the next.
    const why = explanations[r.row];
    const differing = new Set([...differences(r).map((d) => d.property), ...(standing?.kind === 'published' ? standing.cells.filter((c) => c.verdict !== 'agree').map((c) => c.property) : [])]);
    if (why && why.properties.some((p) => differing.has(p))) lines.push('', `**Why they differ** (${why.properties.filter((p) => differing.has(p)).map((p) => PROPERTIES[p].label).join(', ')}). ${why.text}`);
  }
  lines.push('');
  return lines.join('\n');
}
