import type { FaultOfFamily } from '../../../sim/faults/index.js';
import { withProbe } from '../../processes/probe.js';
import { zoneTarget, type RealFaultWorld, type RealMeans } from './real-means.js';

const FILLER_KEY = 'dynoq-twin:tenant';

/** `used_memory` and `used_memory_dataset` of a redis-server. */
async function memoryOf(port: number): Promise<{ used: number; dataset: number }> {
  const info = await withProbe(port, (c) => c.info('memory'));
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), dataset: field('used_memory_dataset') };
}

/** Lifts the limit (maxmemory 0, noeviction) and removes the filler; a server that is down is left alone. */
async function freeMemory(w: RealFaultWorld, zone: string): Promise<void> {
  try {
    await withProbe(w.cluster.redisPort(zone), async (c) => {
      await c.del(FILLER_KEY);
      await c.config('SET', 'maxmemory', '0');
      await c.config('SET', 'maxmemory-policy', 'noeviction');
    });
    w.log(`redis of ${zone} freed (maxmemory 0)`);
  } catch (err) {
    w.log(`redis of ${zone} not freed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Puts the zone's redis-server over its maxmemory as the simulated fault does: what fits is
 * `fraction` of its dataset, by CONFIG SET maxmemory (means 'limit', also for eviction) or by a
 * maxmemory at what it uses now and a filler client's key (means 'tenant'); freed after `durationMs`.
 * One means for both families, so that a zone already over its limit by one is left alone by the other.
 */
export const redisMemory: RealMeans<FaultOfFamily<'memory-pressure' | 'eviction'>> = {
  target: zoneTarget,
  start(w) {
    /** Per zone, the timer that frees a Redis put over its maxmemory. */
    const pressed = new Map<string, NodeJS.Timeout>();
    return {
      async strike(f) {
        if (pressed.has(f.zone)) return;
        const port = w.cluster.redisPort(f.zone);
        const { used, dataset } = await memoryOf(port);
        const over = Math.max(1, Math.floor(dataset * (1 - f.fraction)));
        const policy = f.kind === 'eviction' ? f.policy : 'noeviction';
        const means = f.kind === 'memory-pressure' ? f.means : 'limit';
        await withProbe(port, async (c) => {
          await c.config('SET', 'maxmemory-policy', policy);
          // The tenant's key first, then the limit at what the server used before it: a SET sent with the
          // limit already at the server's use would be refused (its own query buffer takes it over).
          if (means === 'tenant') await c.set(FILLER_KEY, 'x'.repeat(over));
          await c.config('SET', 'maxmemory', String(means === 'tenant' ? used : Math.max(1, used - over)));
        });
        const since = w.now();
        const healed = w.struck(f, since);
        w.log(`redis of ${f.zone} over its maxmemory by ${over} B (${means === 'tenant' ? 'a filler client' : 'CONFIG SET maxmemory'}, ${policy}) for ${f.durationMs} ms`);
        pressed.set(
          f.zone,
          setTimeout(() => {
            pressed.delete(f.zone);
            void freeMemory(w, f.zone).then(() => healed(w.now() - since));
          }, f.durationMs),
        );
      },
      async healAll() {
        await Promise.all(
          [...pressed].map(async ([zone, timer]) => {
            clearTimeout(timer);
            await freeMemory(w, zone);
          }),
        );
        pressed.clear();
      },
    };
  },
};
