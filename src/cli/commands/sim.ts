import { parseSimConfig, type SimConfig, type SimConfigInput } from '../../sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../../sim/run/configurations.js';
import { formatHistoryFile } from '../../model/history-file.js';
import { checkerSettings } from '../../sim/settings/checker-settings.js';
import { runSimulation, SIM_EPOCH, type SimResult } from '../../sim/run/run.js';
import { scenarioConfig, type Scenario } from '../../sim/run/scenario.js';
import { loadScenarioFile } from '../scenario-file.js';
import { formatRealSummary, formatSummary } from '../summary.js';
import { CliError } from '../cli-error.js';
import { DEFAULT_STORY, formatStoryTable, storyTitle } from '../default-story.js';
import { emitJson, writeOutput } from '../output.js';
import { writeRunReport } from './report.js';
import type { ProfileName } from '../../sim/settings/workload-profile.js';
import { PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import { regularFileOrThrow } from '../regular-file.js';
import type { PeerLinks } from '../../real/twin/peer-links.js';

interface SimFlags {
  seed?: string;
  configuration?: string;
  mode?: 'atomic' | 'legacy';
  topology?: 'dynomite' | 'primary-replica';
  messages?: number;
  profile?: ProfileName;
  /** Properties the run must keep (default all; a scenario's own expect.hold otherwise). */
  require?: PropertyName[];
  trace?: string;
  history?: string;
  checkDeterminism?: boolean;
  json?: boolean;
  verbose?: boolean;
  html?: string;
  /** Run on real processes (the real twin) instead of the simulator. */
  real?: boolean;
  /** With --real on Dynomite: the peer links' network (runReal's peerLinks). */
  peerLinks?: PeerLinks;
}

/** What to run: a scenario file, a named configuration, or the default story. */
function configsFor(file: string | undefined, flags: SimFlags): { title: string; config: SimConfig; scenario?: Scenario; notRun?: string }[] {
  const override = (input: SimConfigInput): SimConfigInput => ({
    ...input,
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    queue: { ...input.queue, ...(flags.mode ? { mode: flags.mode } : {}) },
    topology: { ...input.topology, ...(flags.topology ? { kind: flags.topology } : {}) },
    workload: { ...input.workload, ...(flags.messages !== undefined ? { messages: flags.messages } : {}), ...(flags.profile ? { profile: flags.profile } : {}) },
    keepTrace: Boolean(flags.trace),
  });
  // A scenario fixes its own set-up: which one a --configuration beside it meant cannot be guessed.
  if (file && flags.configuration) throw new CliError(`give a scenario file or --configuration, not both (got ${file} and --configuration ${flags.configuration})`);
  if (file) {
    regularFileOrThrow(file);
    const scenario = loadScenarioFile(file);
    return [{ title: `${scenario.name}: ${scenario.description}`, config: parseSimConfig(override(scenarioConfig(scenario))), scenario }];
  }
  if (flags.configuration) {
    const named = CONFIGURATIONS.find((c) => c.name === flags.configuration);
    if (!named) throw new CliError(`unknown configuration ${flags.configuration}; one of:\n  ${CONFIGURATIONS.map((c) => c.name).join('\n  ')}`);
    const seed = flags.seed ?? '1';
    return [{ title: named.name, config: parseSimConfig(override(configurationRun(named, seed))) }];
  }
  return DEFAULT_STORY.map((s) => {
    const input = override(s.config);
    // --mode legacy: the server-time run has no legacy counterpart (serverTime is an atomic-mode option)
    if (input.queue?.mode === 'legacy' && input.queue.serverTime) {
      const config = parseSimConfig({ ...input, queue: { ...input.queue, serverTime: false } });
      return { title: storyTitle(config, s.what), config, notRun: 'serverTime is an atomic-mode option' };
    }
    const config = parseSimConfig(input);
    return { title: storyTitle(config, s.what), config };
  });
}

/** Whether the real twin of one run kept what it had to (a scenario's expect.hold, else --require or every property). */
async function realTwin(title: string, config: SimConfig, scenario: Scenario | undefined, flags: SimFlags): Promise<boolean> {
  const unsupported = (['checkDeterminism', 'trace', 'html'] as const).filter((f) => flags[f]);
  if (unsupported.length > 0) throw new CliError(`--real runs on real processes: ${unsupported.map((f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} need a simulated run`);
  if (flags.peerLinks && config.topology.kind !== 'dynomite') throw new CliError(`--peer-links: only a Dynomite twin has peer links (${title} runs on ${config.topology.kind})`);
  const { runReal } = await import('../../real/twin/run-real.js');
  console.log(`seed ${config.seed} (real twin)`);
  const result = await runReal(config, { ...(flags.verbose ? { onLog: (line: string) => console.error(line) } : {}), ...(flags.peerLinks ? { peerLinks: flags.peerLinks } : {}) });
  if (!flags.json) console.log(formatRealSummary(result, `${title} (real twin)`));
  if (flags.history) {
    writeOutput(flags.history, formatHistoryFile(result.history, { livenessStart: result.livenessStart, end: result.end }, checkerSettings(config)));
    console.log(`history written to ${flags.history}`);
  }
  if (flags.json) emitJson({ seed: config.seed, real: true, realMs: result.realMs, peerLinks: result.peerLinks, faults: result.faults, replicas: result.replicas, report: { ...result.report, violations: result.report.violations.slice(0, 50) } });
  const required = scenario ? scenario.expect.hold : (flags.require ?? PROPERTY_NAMES);
  const broken = required.filter((p) => !result.report.properties[p]);
  if (broken.length > 0 && !flags.json) console.log(`expected to hold but violated: ${broken.join(', ')}`);
  return broken.length === 0;
}

/** Exit code: 1 when a property is violated (for a scenario file: a property it expects to hold). */
export async function simCommand(file: string | undefined, flags: SimFlags): Promise<number> {
  let exit = 0;
  const results: SimResult[] = [];
  const runs = configsFor(file, flags);
  if (flags.peerLinks && !flags.real && !runs.some((r) => r.scenario?.real)) throw new CliError('--peer-links chooses the network of a real twin: give --real too');
  const ran = new Map<number, SimResult>();
  let lastSeed: string | undefined;
  for (const [i, { title, config, scenario, notRun }] of runs.entries()) {
    if (notRun !== undefined) continue;
    if (flags.real || scenario?.real) {
      if (!(await realTwin(title, config, scenario, flags))) exit = 1;
      continue;
    }
    // one seed line per seed: the story's runs share one
    if (config.seed !== lastSeed) console.log(`seed ${config.seed}`);
    lastSeed = config.seed;
    const result = await runSimulation(config);
    results.push(result);
    ran.set(i, result);
    if (flags.checkDeterminism) {
      const again = await runSimulation(config);
      if (again.traceHash !== result.traceHash) {
        console.error(`determinism check FAILED: ${result.traceHash} then ${again.traceHash}`);
        exit = 1;
      } else console.log(`determinism check: the same trace hash twice (${result.traceHash.slice(0, 16)}…)`);
    }
    const story = !file && !flags.configuration;
    if (!flags.json && (!story || flags.verbose)) console.log(formatSummary(result, title));
    if (scenario) {
      const broken = scenario.expect.hold.filter((p) => !result.report.properties[p]);
      if (broken.length > 0) {
        console.log(`expected to hold but violated: ${broken.join(', ')}`);
        exit = 1;
      }
    } else {
      const required = flags.require ?? PROPERTY_NAMES;
      const broken = required.filter((p) => !result.report.properties[p]);
      if (broken.length > 0) exit = 1;
      const others = PROPERTY_NAMES.filter((p) => !required.includes(p) && !result.report.properties[p]);
      if (others.length > 0 && !flags.json) console.log(`reported, not failed (outside --require): ${others.join(', ')}`);
    }
    if (flags.html) {
      const path = results.length > 1 ? flags.html.replace(/(\.html?)?$/, `-${results.length}$1`) : flags.html;
      writeRunReport(result, title, path);
      console.log(`HTML report written to ${path}`);
    }
    if (flags.history) {
      const path = results.length > 1 ? flags.history.replace(/(\.jsonl?)?$/, `-${results.length}$1`) : flags.history;
      const c = result.config;
      writeOutput(path, formatHistoryFile(result.history, { livenessStart: result.livenessStart, end: SIM_EPOCH + result.simulatedMs }, checkerSettings(c)));
      console.log(`history written to ${path}`);
    }
    if (flags.trace && result.traceText !== null) {
      const path = results.length > 1 ? flags.trace.replace(/(\.jsonl?)?$/, `-${results.length}$1`) : flags.trace;
      writeOutput(path, result.traceText);
      console.log(`trace written to ${path}`);
    }
    if (!flags.json && (!story || flags.verbose)) console.log('');
  }
  if (!file && !flags.configuration && !flags.json && results.length > 1) {
    console.log(formatStoryTable(runs.map(({ title, notRun }, i) => (notRun !== undefined ? { title, notRun } : { title, result: ran.get(i)! }))));
  }
  if (flags.json) {
    emitJson(results.map((r) => ({ seed: r.config.seed, traceHash: r.traceHash, report: { ...r.report, violations: r.report.violations.slice(0, 50) } })));
  }
  return exit;
}
