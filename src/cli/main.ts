import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { PEER_LINKS } from '../real/twin/peer-links.js';
import { CliError } from './cli-error.js';
import { EXIT, describeError } from './exit-codes.js';
import { emitJsonError, enableJsonMode, isJsonMode } from './output.js';
import { scriptModeFromEnv } from '../sim/store/script-mode-env.js';
import { PROFILE_NAMES } from '../sim/settings/workload-names.js';
import { EXPLORE_SCRIPTS } from '../sim/campaign/explore-scripts.js';
import { PROPERTY_NAMES } from '../model/properties.js';
import { FAULT_FAMILY_NAMES } from '../sim/faults/index.js';

// Commands are loaded when they run, so that `dynoq --version` and `--help` start fast.

function shardArg(value: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const shard = m ? { index: Number(m[1]), count: Number(m[2]) } : null;
  if (!shard || shard.index < 1 || shard.index > shard.count) throw new InvalidArgumentError(`--shard must be K/N with 1 ≤ K ≤ N (got ${JSON.stringify(value)})`);
  return shard;
}

/** A seed names a run: an empty one would silently fall back to the default (sim) or make seeds "-0", "-1"… (explore). */
function seedArg(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('a seed must not be empty');
  return value;
}

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1 (got ${JSON.stringify(value)})`);
    return n;
  };
}

/** "60s", "5m", "1500ms" or a bare number of seconds. */
function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`a duration like 60s, 5m or 1500ms (got ${JSON.stringify(value)})`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(n * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit]!);
}

/** A duration above 0: `--time 0s` would explore nothing and exit 0, as if nothing were wrong. */
function positiveDuration(value: string): number {
  const ms = parseDuration(value);
  if (ms <= 0) throw new InvalidArgumentError(`a duration above 0, like 60s or 5m (got ${JSON.stringify(value)})`);
  return ms;
}

function packageVersion(): string {
  // The bundled CLI is dist/cli.js (one folder below package.json), the source src/cli/main.ts (two).
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'dynoq') return pkg.version;
    } catch {
      // not this folder
    }
  }
  throw new Error('dynoq: package.json not found beside the CLI');
}

let exitCode: number = EXIT.ok;
const run = (json: boolean | undefined, fn: () => Promise<number> | number) => async () => {
  if (json) enableJsonMode();
  scriptModeFromEnv();
  exitCode = await fn();
};

const program = new Command()
  .name('dynoq')
  .description('A Dyno-queues port on Redis and a deterministic simulator that measures what it guarantees.')
  .version(packageVersion(), '-V, --version', 'print the version')
  .exitOverride()
  // A usage error is one line (README); the help it would drown in is one command away.
  .showHelpAfterError('(see dynoq --help)')
  .addHelpText(
    'after',
    '\nExit codes: 0 every property held / replay matched · 1 a property violated or a replay differed · 2 bad input or usage · 3 internal error · 4 (judge) unknown: nothing violated, too much unknown to tell.\nWith --json, stdout carries exactly one JSON document; progress and notes go to stderr.',
  );

program
  .command('sim')
  .description('Run one simulation (a scenario file, a named configuration, or the default story) and judge its history; exit 1 when a property is violated (a scenario: one it expects to hold)')
  .argument('[scenario]', 'a scenario JSON file (see scenarios/)')
  .option('--seed <seed>', 'seed of the run (printed first; the same seed replays the same run)', seedArg)
  .option('--configuration <name>', 'a configuration of the guarantees table (see docs/GUARANTEES.md)')
  .addOption(new Option('--mode <mode>', 'queue mode').choices(['atomic', 'legacy']))
  .addOption(new Option('--topology <kind>', 'simulated topology').choices(['dynomite', 'primary-replica']))
  .option('--messages <n>', 'messages to push', positiveInt('--messages'))
  .option('--require <properties>', 'without a scenario file: exit 1 only when one of these properties (comma-separated) is violated (default all)', (v: string) => propertyList(v))
  .addOption(new Option('--profile <name>', 'workload profile: basic (push, pop, ack), delays (every message delayed), full (every public queue operation)').choices([...PROFILE_NAMES]))
  .option('--trace <file>', 'write the trace (one JSON line per event) to this file')
  .option('--history <file>', 'write the history (the format dynoq judge reads) to this file')
  .option('--check-determinism', 'run twice and fail if the trace hashes differ')
  .option('--json', 'print the reports as one JSON document on stdout')
  .option('--verbose', 'the default story: print every run in full, not only the one-screen table')
  .option('--html <file>', 'write a self-contained HTML timeline of the run (one per run: -2, -3… for the default story)')
  .option('--real', 'run the real twin instead: the same configuration, workload and faults on real redis-server/Sentinel or Dynomite processes on loopback (needs redis-server; Dynomite needs scripts/build-dynomite.sh)')
  .addOption(
    new Option('--peer-links <network>', "with --real on Dynomite: configured — the configuration's latency and replication lag added on every peer link, as simulated; loopback — the links as they are (well under 1 ms) (default configured)").choices([...PEER_LINKS]),
  )
  .action((scenario: string | undefined, opts) =>
    run(opts.json, async () => (await import('./commands/sim.js')).simCommand(scenario, opts))(),
  );

program
  .command('replay')
  .description('Re-run scenario files; exit 1 when an outcome or a recorded trace hash differs')
  .argument('<files...>', 'scenario JSON files')
  .option('--record', "write this run's outcome and trace hash into each file's expect (after a deliberate change)")
  .option('--json', 'print one JSON document on stdout: per file, the outcome and any difference')
  .action((files: string[], opts) => run(opts.json, async () => (await import('./commands/replay.js')).replayCommand(files, opts))());

const PROPERTY_LIST = PROPERTY_NAMES.join(', ');
const listOf = <T extends string>(flag: string, allowed: readonly T[]) => (v: string): T[] => {
  const items = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  const bad = items.filter((x) => !(allowed as readonly string[]).includes(x));
  if (items.length === 0 || bad.length > 0) throw new InvalidArgumentError(`${flag} takes a comma-separated list of ${allowed.join(', ')}${bad.length > 0 ? `; not ${bad.join(', ')}` : ''}`);
  return items as T[];
};
const propertyList = listOf('--require', PROPERTY_NAMES);
const familyList = listOf('--faults', FAULT_FAMILY_NAMES);

program
  .command('explore')
  .description('Swarm exploration: random configurations and fault schedules; each violation is shrunk and written as a scenario (exit 1 when one is found)')
  .option('--time <duration>', 'wall-clock budget of the whole command, e.g. 60s or 5m (above 0): at it no new seed starts, shrinking stops (a found violation keeps the smallest failing scenario so far) and a running simulation is stopped without a verdict; with --runs, seeds left unexplored end in exit 4', positiveDuration)
  .option('--runs <n>', "number of seeds to try (with --shard: this shard's own; N shards of --runs R cover seeds 0…N·R-1)", positiveInt('--runs'))
  .option('--seed <seed>', 'base seed; seed i is <seed>-<i>', seedArg, 'explore')
  .option('--from <scenario>', "explore around this scenario's topology, queue and workload (new seeds and fault schedules)")
  .option('--require <properties>', `the properties the set-up must keep, comma-separated (default all): a finding that breaks only others is reported, not failed; one of ${PROPERTY_LIST}`, propertyList)
  .option('--faults <families>', `the fault families to draw, comma-separated (default: every family the configuration allows, but eviction, drawn only when named); one of ${FAULT_FAMILY_NAMES.join(', ')}`, familyList)
  .option('--known <file>', 'a JSON array of mechanisms ("kind ← cause", as docs/GUARANTEES.md prints them) already known for this set-up: findings made only of them do not fail')
  .option('--out <dir>', 'where found scenarios go', 'scenarios/found')
  .option('--jobs <n>', 'worker threads (default 1; give the number of cores to use them all)', positiveInt('--jobs'))
  .option('--shard <k/n>', 'explore only shard K of N of the seeds (one CI matrix job each; dynoq merge combines them)', shardArg)
  .option('--results <file>', 'one JSON line per explored seed (default: <out>/explore[-K-of-N].jsonl)')
  .addOption(
    new Option('--scripts <mode>', "how the simulated servers run the queue's scripts: mixed — every 4th seed in Redis's Lua with every twin call compared to it, the others on the JavaScript twins, every finding run again in Lua; twin; lua; compare (default mixed)").choices([...EXPLORE_SCRIPTS]),
  )
  .option('--json', 'print one JSON document on stdout: every finding and its scenario file')
  .action((opts) =>
    run(opts.json, async () => {
      if (opts.time === undefined && opts.runs === undefined) throw new CliError('give --time (e.g. 60s) or --runs N');
      return (await import('./commands/explore.js')).exploreCommand(opts);
    })(),
  );

program
  .command('merge')
  .description('Combine explore results (shards of a CI matrix) into one results file and one folder of shrunk scenarios; exit 1 when any shard found a violation')
  .argument('<results...>', 'results files (*.jsonl) or folders holding them')
  .option('--out <dir>', 'where the merged results and scenarios go', 'scenarios/found')
  .option('--json', 'print one JSON document on stdout')
  .action((results: string[], opts) => run(opts.json, async () => (await import('./commands/merge.js')).mergeCommand(results, opts))());

program
  .command('check')
  .description('Run the model-based suite against a Redis you name (keys under dynoq-check-*, cleared afterwards); exit 1 when the queue disagrees with the model')
  .requiredOption('--redis <url>', 'e.g. redis://127.0.0.1:6379, redis-sentinel://host:26379/mymaster, redis-cluster://host:7000')
  .option('--runs <n>', 'generated command sequences per mode', positiveInt('--runs'), 100)
  .option('--seed <n>', 'fast-check seed (to replay a failure)', (v) => {
    const n = Number(v);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`a whole number (got ${JSON.stringify(v)})`);
    return n;
  })
  .addOption(new Option('--mode <mode>', 'check only this queue mode (default: atomic, then legacy)').choices(['atomic', 'legacy']))
  .option('--path <path>', "fast-check's shrink path of a failure (with --seed and --mode, as the failure printed them): replays its counterexample at once")
  .option('--replay-path <replayPath>', "the failing command sequence's replay path (printed with the failure)")
  .option('--json', 'print one JSON document on stdout: the outcome per mode')
  .action((opts) => run(opts.json, async () => (await import('./commands/check.js')).checkCommand(opts))());

program
  .command('guarantees')
  .description('Measure every configuration over N seeds and write the guarantees table')
  .option('--seeds <n>', 'runs per configuration (default 200: every cell at least 200 runs; the timing is in docs/BENCHMARKS.md)', positiveInt('--seeds'), 200)
  .option('--out <file>', 'Markdown output: the decision page', 'GUARANTEES.md')
  .option('--json <file>', 'the data, every configuration and property (default: GUARANTEES.json beside --out)')
  .option('--html <file>', 'the sortable, filterable page (default: guarantees.html beside --out)')
  .option('--render-from <file>', 'render --out and --html from this data file (a GUARANTEES.json) without running any simulation')
  .option('--jobs <n>', 'worker threads (default: every core)', positiveInt('--jobs'))
  .option('--only <text>', 'only configurations whose name contains this')
  .option('--scenarios <dir>', 'shrink one scenario per mechanism into this folder')
  .option('--max-scenarios <n>', 'at most this many mechanism scenarios', positiveInt('--max-scenarios'), 40)
  .action((opts) => run(false, async () => (await import('./commands/guarantees.js')).guaranteesCommand(opts))());

program
  .command('fidelity')
  .description('Run the real twins of the fidelity rows (real redis-server/Sentinel and Dynomite processes) next to the simulator and write the comparison table (docs/FIDELITY.md)')
  .option('--out <file>', 'Markdown output', 'FIDELITY.md')
  .option('--data <file>', 'the measurement as JSON, which --only merges into (default: the output with .json)')
  .option('--runs <n>', 'real runs per row at most (fewer than 20 make intervals too wide to disagree)', positiveInt('--runs'), 20)
  .option('--sim-seeds <n>', 'simulated seeds per row', positiveInt('--sim-seeds'), 40)
  .option('--budget-minutes <n>', 'wall-clock budget for all real runs (rows take turns)', positiveInt('--budget-minutes'), 600)
  .option('--only <text>', 'measure only rows whose name contains this (or any of TEXT,TEXT…); the others are kept from the earlier data')
  .option('--jobs <n>', 'processes to split the run between (real runs in parallel, on their own ports), added up at the end', positiveInt('--jobs'))
  .option('--claims <dir>', "this process's share of a run split between processes that name the same folder; its --data is written after every real run (add the shares up with --merge)")
  .option('--merge <files...>', 'add up the --data files of the shares of one run into the table (rows no share measured are kept from --data), measuring nothing')
  .option('--published <file>', "the published guarantees data whose cells the table checks against the real twins (default: GUARANTEES.json beside --out; none there: not checked)")
  .action((opts) => run(false, async () => (await import('./commands/fidelity.js')).fidelityCommand(opts))());

const nonNegative = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a number ≥ 0 (got ${JSON.stringify(value)})`);
  return n;
};

const fraction = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number from 0 to 1 (got ${JSON.stringify(value)})`);
  return n;
};

program
  .command('judge')
  .description('Judge a recorded history (JSON lines, one operation per line; see the README), read as a stream; exit 0 valid, 1 invalid (a property violated), 2 bad input, 4 unknown (too much rests on unknown operations)')
  .argument('<history>', 'a history file (dynoq sim --history writes one)')
  .option('--liveness-start <ms>', 'from when every un-acked delivery must be recovered in time (default: the run line, else the first operation)', nonNegative('--liveness-start'))
  .option('--end <ms>', 'when the history ends (default: the run line, else the last completion)', nonNegative('--end'))
  .option('--reaper-interval <ms>', 'the reaper period (default: the run line, else 1000)', nonNegative('--reaper-interval'))
  .option('--recovery-bound <ms>', 'allowed recovery time after lease end + reaper period (default: the run line, else 5000)', nonNegative('--recovery-bound'))
  .option('--delivery-bound <ms>', 'the delivery bound B: how long a waiting pop may go without a free and due message of its shard; judges priority order and delivered promptly (default: the run line, else not judged)', nonNegative('--delivery-bound'))
  .option('--max-undetermined <fraction>', 'the largest share of messages whose processing rests on unknown operations only for which a history with no violation is still valid, else unknown (default 0.01)', fraction('--max-undetermined'))
  .option('--json', 'print the report as one JSON document')
  .action((file: string, opts) =>
    run(opts.json, async () => (await import('./commands/judge.js')).judgeCommand(file, opts))(),
  );

program
  .command('report')
  .description('Judge a trace file (from dynoq sim --trace) or a history (the dynoq judge format) again and draw it as a self-contained HTML timeline with a time axis and plots; exit 1 when it violates a property')
  .argument('<trace>', 'a trace file written by dynoq sim --trace, or a history file (JSON lines, as dynoq judge reads)')
  .requiredOption('--html <file>', 'where the HTML goes (its folder is created)')
  .action((trace: string, opts) => run(false, async () => (await import('./commands/report.js')).reportCommand(trace, opts))());

program
  .command('schema')
  .description('Print the JSON Schema of scenario files (for editors), or with --history of a history line (docs/history.schema.json)')
  .option('--history', 'the schema of one line of a history file (dynoq judge) instead')
  .option('--out <file>', 'write it to a file instead')
  .action((opts) => run(false, async () => (await import('./commands/schema.js')).schemaCommand(opts))());

for (const command of program.commands) command.showHelpAfterError(`(see dynoq ${command.name()} --help)`);

/** Whether this invocation asked for --json on a command that has it (a usage error strikes before the command runs). */
function jsonAsked(): boolean {
  const args = process.argv.slice(2);
  const command = program.commands.find((c) => c.name() === args[0]);
  return isJsonMode() || (command !== undefined && command.options.some((o) => o.long === '--json') && args.includes('--json'));
}

try {
  await program.parseAsync(process.argv);
  process.exitCode = exitCode;
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and --version exit 0; every other commander error is a usage error (its message is printed).
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (process.exitCode !== EXIT.ok && jsonAsked()) emitJsonError(err.message.replace(/^error: /, ''), EXIT.usage);
  } else {
    const { message, code } = describeError(err);
    console.error(message);
    process.exitCode = code;
    if (jsonAsked()) emitJsonError(message.replace(/^dynoq: /, ''), code);
  }
}
