/**
 * The simulator benchmark's two workloads on the compiled dist/ (what `dynoq sim` and the table's
 * workers run), not the TypeScript sources: run `npm run build` first (bench:report does). Not a test.
 */
import { describeRuns, referenceWorkload, SPARSE_HOUR, steady, timedRun } from './sim-workloads.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
// A path the type checker does not follow: dist/ may not be built when the sources are checked.
const distSim = '../dist/sim.js';
const engine = (await import(distSim)) as Parameters<typeof timedRun>[0];

const hour = await timedRun(engine, SPARSE_HOUR);
const hourWarm = await steady(3, () => timedRun(engine, SPARSE_HOUR));
const reference = await timedRun(engine, referenceWorkload(MESSAGES));
const referenceWarm = await steady(3, () => timedRun(engine, referenceWorkload(MESSAGES)));
console.log('from dist/ (compiled and bundled); "first run" is the first of its workload in this process (the sparse hour runs first, in a fresh process), then 3 more');
console.log('sparse hour: 3,600 messages at 1/s, 6 consumers polling every second');
for (const line of describeRuns(hour, hourWarm, 3_600)) console.log(line);
console.log(`reference workload: ${MESSAGES} messages, 3 zones, 6 consumers, lag, one node crash + restart`);
for (const line of describeRuns(reference, referenceWarm, 600)) console.log(line);
