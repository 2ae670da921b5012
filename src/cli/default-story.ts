import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROPERTIES, PROPERTIES_WORST_FIRST, PROPERTY_NAMES, VIOLATION_KINDS, WORST_FIRST } from '../model/properties.js';
import type { SimConfig, SimConfigInput } from '../sim/run/config.js';
import { classifyFindings, mechanismCounts } from '../sim/campaign/mechanisms.js';
import type { SimResult } from '../sim/run/run.js';
import { parseGuaranteesData } from '../sim/campaign/guarantees-data.js';
import { whatToUse, whatToUseLines } from '../sim/campaign/guarantees-page.js';
import { packageRoot } from '../real/processes/package-root.js';

/**
 * What `npm start` tells: the same workload, replication lag and a zone failure with a client
 * failover, first on Dyno-queues v1 (legacy), then on the atomic mode; then the same pair with a
 * consumer whose clock runs ahead, where only server time keeps leases honest.
 */
const base = (mode: 'legacy' | 'atomic', extra: Partial<SimConfigInput> = {}): SimConfigInput => ({
  seed: 'story',
  topology: { kind: 'dynomite', zones: ['a', 'b', 'c'], quorumConsistency: 'DC_QUORUM', nonQuorumConsistency: 'DC_ONE' },
  queue: { mode, unackTimeoutMs: 2_000, reaperIntervalMs: 250 },
  // A failover client (connect's dynomite.failover, or Dyno's own): the story shows a zone failover.
  network: { profile: 'wan', lagMeanMs: 20, lagSpikeProbability: 0.02, lagSpikeMs: 500, clientFailover: true },
  workload: { messages: 300, producers: 3, rate: 50, consumers: 6, consumerBatch: 5, processingMeanMs: 150, lateAckProbability: 0.02, lateAckMs: 2_500 },
  faults: [
    { at: 2_000, kind: 'crash-node', target: 'b', loseUnreplicated: false },
    { at: 6_000, kind: 'restart-node', target: 'b' },
  ],
  phases: { safetyMs: 8_000, livenessMs: 60_000 },
  ...extra,
});

const skew: SimConfigInput['faults'] = [{ at: 0, kind: 'clock-skew', target: 'consumer-3', offsetMs: 1_900 }];

/** Each run of the story: its configuration and what it shows besides the queue mode. */
export const DEFAULT_STORY: readonly { what: string; config: SimConfigInput }[] = [
  { what: 'lag, zone b crashes at 2 s and returns at 6 s', config: base('legacy') },
  { what: 'the same workload and faults', config: base('atomic') },
  { what: 'a consumer clock 1.9 s ahead (lease 2 s)', config: base('legacy', { faults: skew }) },
  { what: 'the same skew, client time', config: base('atomic', { faults: skew }) },
  {
    what: 'the same skew, server time (on a Redis primary: refused on Dynomite)',
    config: base('atomic', {
      topology: { kind: 'primary-replica', zones: ['a', 'b', 'c'] },
      faults: skew,
      queue: { mode: 'atomic', unackTimeoutMs: 2_000, reaperIntervalMs: 250, serverTime: true },
    }),
  },
];

/** A story run's title, from the configuration that actually ran (`--mode` and `--topology` change it). */
export function storyTitle(config: SimConfig, what: string): string {
  const mode = config.queue.mode === 'legacy' ? 'legacy (Dyno-queues v1)' : 'atomic';
  return `${mode} on ${config.topology.kind}: ${what}`;
}

/**
 * A scenario under scenarios/ whose recorded mechanism is `key`, of the run's queue mode (a legacy
 * run is not pointed at an atomic scenario), on its topology if one is at hand; null if none is.
 */
function scenarioShowing(key: string, config: SimConfig): string | null {
  const found: { file: string; sameTopology: boolean }[] = [];
  for (const dir of ['scenarios/mechanisms', 'scenarios']) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
      const text = readFileSync(join(dir, f), 'utf8');
      if (!text.includes(`Mechanism (classified from the run): ${key}.`)) continue;
      const scenario = JSON.parse(text) as { queue?: { mode?: string }; topology?: { kind?: string } };
      if ((scenario.queue?.mode ?? 'atomic') !== config.queue.mode) continue;
      found.push({ file: join(dir, f), sameTopology: (scenario.topology?.kind ?? 'dynomite') === config.topology.kind });
    }
  }
  return (found.find((s) => s.sameTopology) ?? found[0])?.file ?? null;
}

/**
 * The story on one screen: per run, each property held or violated with the messages it cost, and
 * for each violation the mechanism read from the run and a scenario that shows it.
 */
export function formatStoryTable(entries: readonly ({ title: string; result: SimResult } | { title: string; notRun: string })[], measured: readonly string[] = measuredSummary()): string {
  const lines = ['The story in one screen (counts are messages):'];
  for (const entry of entries) {
    const { title } = entry;
    if ('notRun' in entry) {
      lines.push(`- ${title}: not run: ${entry.notRun}`);
      continue;
    }
    const { result } = entry;
    const r = result.report;
    lines.push(`- ${title}: ${r.pushed} pushed, ${r.acked} acked`);
    const held = PROPERTY_NAMES.filter((p) => r.properties[p]).map((p) => PROPERTIES[p].label);
    lines.push(`    held: ${held.join(', ') || 'nothing'}`);
    const mechanisms = classifyFindings(r.violations, result.history, result.faults);
    for (const p of PROPERTIES_WORST_FIRST.filter((q) => !r.properties[q])) {
      const kinds = WORST_FIRST.filter((k) => VIOLATION_KINDS[k].breaks === p && r.messagesAffected[k] > 0);
      const msgs = kinds.map((k) => `${r.messagesAffected[k]} ${VIOLATION_KINDS[k].label}`).join(', ');
      const top = [...mechanismCounts(mechanisms.filter((m) => VIOLATION_KINDS[m.kind].breaks === p))].sort((a, b) => b[1] - a[1])[0];
      const scenario = top ? scenarioShowing(top[0], result.config) : null;
      lines.push(`    VIOLATED ${PROPERTIES[p].label}: ${msgs}${top ? `; why: ${top[0]}` : ''}${scenario ? `; replay ${scenario}` : ''}`);
    }
  }
  lines.push(...measured, 'Details per run: --verbose; pictures: --html out/story.html.');
  return lines.join('\n');
}

/**
 * What the published table recommends, from the package's docs/GUARANTEES.json: every figure is the
 * table's (a package without the file points at the page instead).
 */
export function measuredSummary(): string[] {
  const root = packageRoot();
  const file = root ? join(root, 'docs', 'GUARANTEES.json') : null;
  if (!file || !existsSync(file)) return ['Every set-up measured against every fault family: docs/GUARANTEES.md.'];
  const data = parseGuaranteesData(readFileSync(file, 'utf8'), file);
  return ['What to use (measured: docs/GUARANTEES.md; every cell: docs/guarantees.html):', ...whatToUseLines(whatToUse(data)).map((l) => `  ${l}`)];
}
