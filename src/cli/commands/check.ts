import { Redis } from 'ioredis';
import { modelCheck } from '../../harness/model-check.js';
import type { QueueMode } from '../../queue/dyno-queue.js';
import { IoredisStore } from '../../store/ioredis-store.js';

/**
 * The model-based suite against a Redis the user names. Each generated sequence uses its own
 * queue name under the prefix `dynoq-check-<pid>`, and clears its keys afterwards.
 */
export async function checkCommand(flags: { redis: string; runs: number; seed?: number }): Promise<number> {
  const client = new Redis(flags.redis, { maxRetriesPerRequest: 2, lazyConnect: true });
  await client.connect();
  const store = new IoredisStore(client);
  let exit = 0;
  try {
    for (const mode of ['atomic', 'legacy'] as QueueMode[]) {
      try {
        await modelCheck({ mode, runs: flags.runs, seed: flags.seed, namePrefix: `dynoq-check-${process.pid}`, setup: () => ({ store, run: (p) => p }) });
        console.log(`${mode}: ${flags.runs} generated sequences agree with the model`);
      } catch (err) {
        exit = 1;
        console.log(`${mode}: DISAGREES with the model\n${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    client.disconnect();
  }
  return exit;
}
