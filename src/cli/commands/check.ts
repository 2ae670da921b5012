import type { Cluster, Redis } from 'ioredis';
import type { QueueMode } from '../../queue/dyno-queue.js';
import { connect } from '../../store/connect.js';
import { verifyDatabase } from '../../store/database.js';
import { DatabaseRefusedError } from '../../store/errors.js';
import { IoredisStore } from '../../store/ioredis-store.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { emitJson } from '../output.js';
import { needingFastCheck } from '../../testing/optional-peer.js';

/** Connects (or fails in one line naming the URL), so that an unreachable Redis is an input error. */
export async function reachRedis(url: string): Promise<Redis | Cluster> {
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
export function loadModelCheck(): Promise<typeof import('../../harness/model-check.js')> {
  return needingFastCheck('dynoq check', () => import('../../harness/model-check.js'));
}

/**
 * The model-based suite against a Redis the user names. Each generated sequence uses its own
 * queue name under the prefix `dynoq-check-<pid>`, and clears its keys afterwards.
 */
export async function checkCommand(flags: { redis: string; runs: number; seed?: number; json?: boolean }): Promise<number> {
  const { modelCheck } = await loadModelCheck();
  const client = await reachRedis(flags.redis);
  const store = new IoredisStore(client);
  const isCluster = (client as { isCluster?: boolean }).isCluster === true;
  let exit: number = EXIT.ok;
  const outcomes: { mode: QueueMode; agrees: boolean; runs: number; report?: string }[] = [];
  try {
    for (const mode of ['atomic', 'legacy'] as QueueMode[]) {
      try {
        await modelCheck({
          mode,
          runs: flags.runs,
          seed: flags.seed,
          namePrefix: `dynoq-check-${process.pid}`,
          queueOptions: { hashTag: isCluster },
          setup: () => ({ store, run: (p) => p }),
        });
        outcomes.push({ mode, agrees: true, runs: flags.runs });
        console.log(`${mode}: ${flags.runs} generated sequences agree with the model`);
      } catch (err) {
        exit = EXIT.violated;
        const report = err instanceof Error ? err.message : String(err);
        outcomes.push({ mode, agrees: false, runs: flags.runs, report });
        console.log(`${mode}: DISAGREES with the model\n${report}`);
      }
    }
  } finally {
    client.disconnect();
  }
  if (flags.json) emitJson({ redis: flags.redis, outcomes });
  return exit;
}
