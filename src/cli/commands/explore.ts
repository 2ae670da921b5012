import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimConfig, type SimConfig, type SimConfigInput } from '../../sim/config.js';
import { PROPERTY_NAMES, VIOLATION_KINDS, type PropertyName } from '../../model/properties.js';
import { generateFaults } from '../../sim/faults/index.js';
import { Rng } from '../../sim/rng.js';
import { runSimulation } from '../../sim/run.js';
import { loadScenario, scenarioConfig } from '../../sim/scenario.js';
import { shrink } from '../../sim/shrink.js';
import { EXIT } from '../exit-codes.js';
import { emitJson } from '../output.js';
import { progress } from '../progress.js';

export interface ExploreFlags {
  time?: number;
  runs?: number;
  seed: string;
  out: string;
  /** A scenario file: explore around its topology, queue and workload (new seeds and fault schedules). */
  from?: string;
  json?: boolean;
}

/**
 * Around a user's own configuration: its topology, queue options, network, workload and phases are
 * kept; each seed draws a new fault schedule (1–5 faults in the safety phase) and a new seed.
 */
export function configurationAround(base: SimConfig, seed: string): SimConfig {
  const rng = new Rng(seed, 'explore-from');
  const faults = generateFaults(rng.stream('faults'), { count: rng.int(1, 5), safetyMs: base.phases.safetyMs, config: base });
  return parseSimConfig({ ...base, seed, faults, keepTrace: false });
}

/** A random configuration and fault schedule for one seed (swarm testing). */
export function randomConfiguration(seed: string): SimConfig {
  const rng = new Rng(seed, 'explore');
  const zones = ['a', 'b', 'c'].slice(0, rng.int(1, 3));
  // At least one consumer per zone: a shard nobody pops is never drained, which is no finding.
  const consumers = rng.int(zones.length, 4);
  const mode = rng.pick(['legacy', 'atomic'] as const);
  const kind = rng.pick(['dynomite', 'primary-replica'] as const);
  const input: SimConfigInput = {
    seed,
    topology: {
      kind,
      zones,
      quorumConsistency: rng.pick(['DC_ONE', 'DC_QUORUM', 'DC_SAFE_QUORUM'] as const),
      failoverDelayMs: rng.int(500, 3_000),
    },
    queue: { mode, unackTimeoutMs: rng.int(300, 3_000), reaperIntervalMs: rng.int(50, 500), serverTime: mode === 'atomic' && rng.chance(0.3) && kind === 'primary-replica' },
    network: { lagMeanMs: rng.int(0, 100) },
    workload: {
      messages: rng.int(10, 80),
      producers: rng.int(1, 3),
      rate: rng.int(20, 200),
      consumers,
      consumerBatch: rng.int(1, 5),
      processingMeanMs: rng.int(1, 300),
      crashBeforeAckProbability: rng.chance(0.3) ? 0.05 : 0,
      lateAckProbability: rng.chance(0.3) ? 0.1 : 0,
      lateAckMs: rng.int(0, 3_000),
    },
    phases: { safetyMs: 3_000, livenessMs: 30_000 },
  };
  input.faults = generateFaults(rng.stream('faults'), { count: rng.int(1, 5), safetyMs: 3_000, config: parseSimConfig(input) });
  return parseSimConfig(input);
}

/** Swarm exploration: random seeds until a budget ends; each violation is shrunk and written out. */
export async function exploreCommand(flags: ExploreFlags): Promise<number> {
  const deadline = flags.time !== undefined ? Date.now() + flags.time : Infinity;
  const maxRuns = flags.runs ?? Infinity;
  const base = flags.from !== undefined ? scenarioConfig(loadScenario(flags.from)) : undefined;
  const bar = progress('explore');
  const findings: { seed: string; failing: PropertyName[]; file: string; faults: number; messages: number }[] = [];
  let found = 0;
  let i = 0;
  console.log(`seed ${flags.seed}`);
  for (; i < maxRuns && Date.now() < deadline; i++) {
    const seed = `${flags.seed}-${i}`;
    const config = base ? configurationAround(base, seed) : randomConfiguration(seed);
    const result = await runSimulation(config);
    bar.update(i + 1, Number.isFinite(maxRuns) ? maxRuns : i + 1);
    const failing = PROPERTY_NAMES.filter((p) => !result.report.properties[p]);
    if (failing.length === 0) continue;
    found++;
    const small = await shrink(config, (r) => failing.some((p) => !r.report.properties[p]), { keepLiveness: failing.includes('atLeastOnce') });
    const held = PROPERTY_NAMES.filter((p) => small.result.report.properties[p]);
    const violated = PROPERTY_NAMES.filter((p) => !small.result.report.properties[p]);
    const name = `found-${seed}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
    const scenario = {
      name,
      description: `Found by dynoq explore (seed ${seed}), shrunk in ${small.runs} runs: violates ${violated.join(', ')}. First violation: ${small.result.report.violations.find((v) => VIOLATION_KINDS[v.kind].breaks !== null)?.detail ?? 'n/a'}`,
      ...small.config,
      keepTrace: false,
      expect: { hold: held, violate: violated, traceHash: small.result.traceHash },
    };
    mkdirSync(flags.out, { recursive: true });
    const file = join(flags.out, `${name}.json`);
    writeFileSync(file, `${JSON.stringify(scenario, null, 2)}\n`);
    bar.stop();
    findings.push({ seed, failing, file, faults: small.config.faults.length, messages: small.config.workload.messages });
    console.log(`violation at seed ${seed}: ${failing.join(', ')} → shrunk to ${small.config.faults.length} fault(s), ${small.config.workload.messages} message(s) → ${file}`);
  }
  bar.stop();
  console.log(`explored ${i} seed(s), ${found} with a violation`);
  if (flags.json) emitJson({ seed: flags.seed, from: flags.from ?? null, explored: i, found, findings });
  return found > 0 ? EXIT.violated : EXIT.ok;
}
