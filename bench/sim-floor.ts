/**
 * The floor under the simulator's two workloads (npm run bench:sim-floor), not a test: what a run
 * would cost if the simulator did nothing but the work its model cannot skip, measured here.
 *
 * - Data: every keyspace command the run executed (scripts' commands included), per replica,
 *   replayed in order on fresh keyspaces. Dynomite runs every script on every replica and votes on
 *   the replies (DYNOMITE.md), so a faithful model executes each replica's commands; the
 *   one-replica line is the floor of a model that kept a single copy of the data.
 * - Events: as many no-op kernel events as the run executed, each scheduling the next.
 *
 * The run is recorded by wrapping Keyspace.prototype.exec for this process only: a measurement
 * hook, not something the library offers. The ratio printed is the most simulated seconds per wall
 * second a simulator with no queue client, Dynomite, network, trace or checker could reach.
 */
import { Kernel } from '../src/sim/kernel/kernel.js';
import { parseSimConfig, type SimConfigInput } from '../src/sim/run/config.js';
import { runSimulation } from '../src/sim/run/run.js';
import { Keyspace } from '../src/redis/keyspace.js';
import { referenceWorkload, SPARSE_HOUR } from './sim-workloads.js';

type Command = readonly [cmd: string, args: readonly string[]];
/** Commands that run other commands (recorded themselves) or only read the clock. */
const NOT_DATA = new Set(['eval', 'evalsha', 'script', 'time']);

interface KeyspaceLog {
  readonly commands: Command[];
  /** Commands that failed in the run: the replay must fail the same ones. */
  failed: number;
}

async function recordRun(input: SimConfigInput) {
  const logs = new Map<Keyspace, KeyspaceLog>();
  const exec = Keyspace.prototype.exec;
  Keyspace.prototype.exec = function (this: Keyspace, cmd: string, args: readonly string[]) {
    if (NOT_DATA.has(cmd.toLowerCase())) return exec.call(this, cmd, args);
    let log = logs.get(this);
    if (!log) logs.set(this, (log = { commands: [], failed: 0 }));
    log.commands.push([cmd, [...args]]);
    try {
      return exec.call(this, cmd, args);
    } catch (err) {
      log.failed++;
      throw err;
    }
  };
  let result;
  let wallMs;
  try {
    const start = performance.now();
    result = await runSimulation(parseSimConfig(input));
    wallMs = performance.now() - start;
  } finally {
    Keyspace.prototype.exec = exec;
  }
  // After the hook is gone: the check's own commands must not be recorded.
  verifyReplay(logs);
  return { logs: [...logs.values()].map((l) => l.commands), result, wallMs };
}

/**
 * The replay is a floor only if it does the run's work: each log, replayed on an empty keyspace, must
 * fail the same number of commands and end with the data the run's keyspace holds. It would not if
 * something changed a keyspace around exec (a wipe, a resync, applied effects): then this throws.
 */
function verifyReplay(logs: ReadonlyMap<Keyspace, KeyspaceLog>): void {
  for (const [live, log] of logs) {
    const keyspace = new Keyspace();
    const failed = replayOne(keyspace, log.commands);
    if (failed !== log.failed || JSON.stringify(keyspace.dump()) !== JSON.stringify(live.dump())) {
      throw new Error(`sim-floor: a replay diverged from the run (${failed} failed commands against ${log.failed}, or different data): the floor would not be the run's work`);
    }
  }
}

/** Runs a log's commands in order; returns how many failed (as they failed in the run: their cost counts). */
function replayOne(keyspace: Keyspace, commands: readonly Command[]): number {
  let failed = 0;
  for (const [cmd, args] of commands) {
    try {
      keyspace.exec(cmd, args);
    } catch {
      failed++;
    }
  }
  return failed;
}

/** Timings per measurement; the fastest counts: a floor is what the work costs when nothing else competes. */
const ROUNDS = 5;

async function fastest(work: () => void | Promise<void>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    await work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function replay(logs: readonly (readonly Command[])[]): void {
  for (const log of logs) replayOne(new Keyspace(), log);
}

/** `n` kernel events that do nothing but schedule the next, run to the end. */
async function noOpEvents(n: number): Promise<void> {
  const kernel = new Kernel();
  let left = n;
  const next = (): void => {
    if (--left > 0) kernel.quietAfter(1, next);
  };
  kernel.quietAfter(1, next);
  await kernel.runUntil(Number.MAX_SAFE_INTEGER);
}

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const workloads: [string, SimConfigInput, number][] = [
  ['sparse hour', SPARSE_HOUR, 3_600],
  [`reference workload (${MESSAGES} messages)`, referenceWorkload(MESSAGES), 600],
];
const rate = (simulatedMs: number, wallMs: number) => Math.round(simulatedMs / wallMs).toLocaleString('en-US');
console.log(`fastest of ${ROUNDS} replays each (each log checked first: replayed alone it fails what the run failed and ends with the run's data); the run itself is timed once, recording included (a slower run than the plain benchmarks)`);
for (const [name, input, target] of workloads) {
  const { logs, result, wallMs } = await recordRun(input);
  const commands = logs.reduce((n, log) => n + log.length, 0);
  const largest = logs.reduce((a, b) => (b.length > a.length ? b : a), []);
  const allReplicas = await fastest(() => replay(logs));
  const oneReplica = await fastest(() => replay([largest]));
  const events = await fastest(() => noOpEvents(result.kernelEvents));
  const simulated = result.simulatedMs;
  console.log(`${name}: ${(simulated / 1000).toFixed(1)} simulated s, ${result.kernelEvents} kernel events, ${commands} keyspace commands on ${logs.length} keyspaces (target ≥ ${target.toLocaleString('en-US')} simulated s per wall s)`);
  console.log(`  the run (recording)        : ${wallMs.toFixed(0)} ms → ${rate(simulated, wallMs)} simulated s per wall s`);
  console.log(`  floor, every replica       : ${allReplicas.toFixed(0)} ms commands + ${events.toFixed(0)} ms no-op events → at most ${rate(simulated, allReplicas + events)} simulated s per wall s`);
  console.log(`  floor, one copy of the data: ${oneReplica.toFixed(0)} ms commands + ${events.toFixed(0)} ms no-op events → at most ${rate(simulated, oneReplica + events)} simulated s per wall s`);
}
