import { Command, InvalidArgumentError, Option } from 'commander';
import { ZodError } from 'zod';
import { HistoryFileError } from '../model/history-file.js';
import { SimConfigError } from '../sim/run.js';
import { ScenarioError } from '../sim/scenario.js';
import { TraceFileError } from '../sim/trace-file.js';
import { CliError } from './cli-error.js';
import { checkCommand } from './commands/check.js';
import { exploreCommand } from './commands/explore.js';
import { guaranteesCommand } from './commands/guarantees.js';
import { judgeCommand } from './commands/judge.js';
import { replayCommand } from './commands/replay.js';
import { reportCommand } from './commands/report.js';
import { schemaCommand } from './commands/schema.js';
import { simCommand } from './commands/sim.js';

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number ≥ 1 (got ${JSON.stringify(value)})`);
    return n;
  };
}

/** "60s", "5m", "1500ms" or a bare number of seconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`a duration like 60s, 5m or 1500ms (got ${JSON.stringify(value)})`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(n * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit]!);
}

let exitCode = 0;
const run = (fn: () => Promise<number> | number) => async () => {
  exitCode = await fn();
};

const program = new Command()
  .name('dynoq')
  .description('A Dyno-queues port on Redis and a deterministic simulator that measures what it guarantees.')
  .showHelpAfterError();

program
  .command('sim')
  .description('Run one simulation (a scenario file, a named configuration, or the default story) and judge its history')
  .argument('[scenario]', 'a scenario JSON file (see scenarios/)')
  .option('--seed <seed>', 'seed of the run (printed first; the same seed replays the same run)')
  .option('--configuration <name>', 'a configuration of the guarantees table (see docs/GUARANTEES.md)')
  .addOption(new Option('--mode <mode>', 'queue mode').choices(['atomic', 'legacy']))
  .addOption(new Option('--topology <kind>', 'simulated topology').choices(['dynomite', 'primary-replica']))
  .option('--messages <n>', 'messages to push', positiveInt('--messages'))
  .option('--trace <file>', 'write the trace (one JSON line per event) to this file')
  .option('--history <file>', 'write the history (the format dynoq judge reads) to this file')
  .option('--check-determinism', 'run twice and fail if the trace hashes differ')
  .option('--json', 'print the reports as JSON')
  .option('--verbose', 'the default story: print every run in full, not only the one-screen table')
  .option('--html <file>', 'write a self-contained HTML timeline of the run (one per run: -2, -3… for the default story)')
  .action((scenario: string | undefined, opts) => run(() => simCommand(scenario, opts))());

program
  .command('replay')
  .description('Re-run scenario files; exit 1 when an outcome or a recorded trace hash differs')
  .argument('<files...>', 'scenario JSON files')
  .option('--record', "write this run's outcome and trace hash into each file's expect (after a deliberate change)")
  .action((files: string[], opts) => run(() => replayCommand(files, opts))());

program
  .command('explore')
  .description('Swarm exploration: random configurations and fault schedules; each violation is shrunk and written as a scenario')
  .option('--time <duration>', 'wall-clock budget, e.g. 60s or 5m', parseDuration)
  .option('--runs <n>', 'number of seeds to try', positiveInt('--runs'))
  .option('--seed <seed>', 'base seed; seed i is <seed>-<i>', 'explore')
  .option('--out <dir>', 'where found scenarios go', 'scenarios/found')
  .action((opts) =>
    run(() => {
      if (opts.time === undefined && opts.runs === undefined) throw new CliError('give --time (e.g. 60s) or --runs N');
      return exploreCommand(opts);
    })(),
  );

program
  .command('check')
  .description('Run the model-based suite against a Redis you name (keys under dynoq-check-*, cleared afterwards)')
  .requiredOption('--redis <url>', 'e.g. redis://127.0.0.1:6379')
  .option('--runs <n>', 'generated command sequences per mode', positiveInt('--runs'), 100)
  .option('--seed <n>', 'fast-check seed (to replay a failure)', (v) => Number(v))
  .action((opts) => run(() => checkCommand(opts))());

program
  .command('guarantees')
  .description('Measure every configuration over N seeds and write the guarantees table')
  .option('--seeds <n>', 'runs per configuration', positiveInt('--seeds'), 200)
  .option('--out <file>', 'Markdown output', 'GUARANTEES.md')
  .option('--jobs <n>', 'worker threads (default: every core)', positiveInt('--jobs'))
  .option('--only <text>', 'only configurations whose name contains this')
  .option('--scenarios <dir>', 'shrink one scenario per mechanism into this folder')
  .option('--max-scenarios <n>', 'at most this many mechanism scenarios', positiveInt('--max-scenarios'), 40)
  .action((opts) => run(() => guaranteesCommand(opts))());

const nonNegative = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a number ≥ 0 (got ${JSON.stringify(value)})`);
  return n;
};

program
  .command('judge')
  .description('Judge a recorded history (JSON lines, one operation per line; see the README); exit 0 all properties held, 1 one violated, 2 bad input')
  .argument('<history>', 'a history file (dynoq sim --history writes one)')
  .option('--liveness-start <ms>', 'from when every un-acked delivery must be recovered in time (default: the run line, else the first operation)', nonNegative('--liveness-start'))
  .option('--end <ms>', 'when the history ends (default: the run line, else the last completion)', nonNegative('--end'))
  .option('--reaper-interval <ms>', 'the reaper period (default: the run line, else 1000)', nonNegative('--reaper-interval'))
  .option('--recovery-bound <ms>', 'allowed recovery time after lease end + reaper period (default: the run line, else 5000)', nonNegative('--recovery-bound'))
  .option('--json', 'print the report as one JSON document')
  .action((file: string, opts) => run(() => judgeCommand(file, opts))());

program
  .command('report')
  .description('Judge a trace file (from dynoq sim --trace) again and draw it as a self-contained HTML timeline')
  .argument('<trace>', 'a trace file written by dynoq sim --trace')
  .requiredOption('--html <file>', 'where the HTML goes')
  .action((trace: string, opts) => run(() => reportCommand(trace, opts))());

program
  .command('schema')
  .description('Print the JSON Schema of scenario files (for editors)')
  .option('--out <file>', 'write it to a file instead')
  .action((opts) => run(() => schemaCommand(opts))());

try {
  await program.parseAsync(process.argv);
  process.exitCode = exitCode;
} catch (err) {
  if (err instanceof ScenarioError || err instanceof CliError || err instanceof TraceFileError || err instanceof HistoryFileError || err instanceof SimConfigError) {
    console.error(`dynoq: ${err.message}`);
    process.exitCode = 2;
  } else if (err instanceof ZodError) {
    console.error(`dynoq: invalid configuration\n${err.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`);
    process.exitCode = 2;
  } else {
    throw err;
  }
}
