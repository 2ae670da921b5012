import type { Cluster, Redis } from 'ioredis';
import type { QueueMode } from '../../queue/dyno-queue.js';
import { connect } from '../../store/connect.js';
import { verifyDatabase } from '../../store/database.js';
import { DatabaseRefusedError } from '../../store/errors.js';
import { IoredisStore } from '../../store/ioredis-store.js';
import { unavailability } from '../../store/redis-unavailable.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { emitJson } from '../output.js';
import { needingFastCheck } from '../../testing/optional-peer.js';

/** Connects (or fails in one line naming the URL), so that an unreachable Redis is an input error. */
async function reachRedis(url: string): Promise<Redis | Cluster> {
  let client: Redis | Cluster;
  try {
    client = connect(url, { lazyConnect: true, connectTimeout: 3_000, commandTimeout: 10_000 });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  let lastError = '';
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  // A Cluster client retries its startup nodes forever: bound the wait here.
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 10 s')), 10_000);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()).then(() => verifyDatabase(client)), giveUp]);
  } catch (err) {
    client.disconnect();
    if (err instanceof DatabaseRefusedError) throw new CliError(`${url}: ${err.message}`);
    throw new CliError(`cannot reach Redis at ${url}: ${lastError || (err instanceof Error ? err.message : String(err))}`);
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** `import('fast-check')` is optional for the package: say how to get it when it is missing (exit 2). */
function loadModelCheck(): Promise<typeof import('../../testing/model-check/model-check.js')> {
  return needingFastCheck('dynoq check', () => import('../../testing/model-check/model-check.js'));
}

interface CheckFlags {
  redis: string;
  runs: number;
  seed?: number;
  /** fast-check's shrink path of a failure (with --seed and --mode): replays its counterexample at once. */
  path?: string;
  /** The counterexample's command replay path (printed with the failure). */
  replayPath?: string;
  mode?: QueueMode;
  json?: boolean;
}

/**
 * The model-based suite against a Redis the user names. Each generated sequence uses its own
 * queue name under the prefix `dynoq-check-<pid>`, and clears its keys afterwards. A failure says
 * which reply differed and the command line that replays it (--seed, --path, --replay-path).
 */
export async function checkCommand(flags: CheckFlags): Promise<number> {
  // A path belongs to one mode's run, and means nothing without its seed.
  if (flags.path !== undefined && (flags.seed === undefined || flags.mode === undefined)) throw new CliError('--path replays one failure: give it with the --seed and --mode the failure printed');
  if (flags.replayPath !== undefined && flags.path === undefined) throw new CliError('--replay-path goes with --seed, --path and --mode (as the failure printed them)');
  const { modelCheck, ModelCheckFailure } = await loadModelCheck();
  const client = await reachRedis(flags.redis);
  const store = new IoredisStore(client);
  const isCluster = (client as { isCluster?: boolean }).isCluster === true;
  let exit: number = EXIT.ok;
  const outcomes: { mode: QueueMode; agrees: boolean; runs: number; report?: string; difference?: { operation: string; expected?: string; got: string }; replay?: string }[] = [];
  try {
    for (const mode of flags.mode ? [flags.mode] : (['atomic', 'legacy'] as QueueMode[])) {
      try {
        await modelCheck({
          mode,
          runs: flags.runs,
          seed: flags.seed,
          ...(flags.path !== undefined ? { path: flags.path } : {}),
          ...(flags.replayPath !== undefined ? { replayPath: flags.replayPath } : {}),
          namePrefix: `dynoq-check-${process.pid}`,
          queueOptions: { hashTag: isCluster },
          setup: () => ({ store, run: (p) => p }),
        });
        outcomes.push({ mode, agrees: true, runs: flags.runs });
        console.log(`${mode}: ${flags.runs} generated sequences agree with the model`);
      } catch (err) {
        const lost = unavailability(err);
        if (lost) throw new CliError(`lost the Redis at ${flags.redis} during the check: ${lost.message}`);
        if (!(err instanceof ModelCheckFailure)) throw err;
        exit = EXIT.violated;
        const replay = err.cliReplay(flags.redis);
        outcomes.push({
          mode,
          agrees: false,
          runs: flags.runs,
          report: err.message,
          difference: { operation: err.operation, ...(err.expected !== undefined ? { expected: err.expected } : {}), got: err.got },
          replay,
        });
        console.log(`${mode}: DISAGREES with the model\n${err.message}\nreplay: ${replay}`);
      }
    }
  } finally {
    client.disconnect();
  }
  if (flags.json) emitJson({ redis: flags.redis, outcomes });
  return exit;
}
