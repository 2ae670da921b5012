import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { failingOn } from '../support/failing-store.js';
import { FakeTime, settle } from '../support/fake-time.js';

// Issue 15, item 6: no lease held by nobody. release(id, token) hands a lease back (visible now);
// consume() releases the rest of its batch when the loop is left early; a waiting pop that fails
// midway returns what it had leased (issue 31); acks after close() work. Plus the smaller Dyno API points.

const MODES: QueueMode[] = ['atomic', 'legacy'];

describe.each(backendNames())('leases and the smaller API points on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (mode: QueueMode, over: Partial<QueueOptionsInput> = {}, store?: Store, time = new FakeTime()) => {
    const queue = createQueue({
      name: `lease${++counter}`,
      mode,
      quorum: store ?? backend.store(),
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: 60_000,
      pollInterval: 10,
      ...backend.queueDefaults,
      ...over,
    }) as BaseQueue;
    return { queue, time };
  };
  const msgs = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, payload: `p${i}`, priority: i % 3 }));

  describe.each(MODES)('%s mode', (mode) => {
    it('break out of consume() releases the rest of the batch at once; the message in hand stays leased', async () => {
      const { queue } = make(mode);
      await queue.push(msgs(5));
      let inHand;
      for await (const m of queue.consume({ batch: 5, wait: 0 })) {
        inHand = m;
        break;
      }
      expect(inHand).toBeDefined();
      const sizes = Object.values(await queue.shardSizes())[0]!;
      expect(sizes).toEqual({ size: 4, uacked: 1 });
      // no time passes: the four come back now, not after a 60 s lease
      const again = await queue.pop(5);
      expect(again.map((m) => m.id).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4'].filter((id) => id !== inHand!.id));
      expect(await queue.ack(inHand!.id, inHand!.token)).toBe(true);
      await queue.close();
    });

    it('return or a throw inside a consume() loop releases the rest of the batch too', async () => {
      const { queue } = make(mode);
      await queue.push(msgs(3));
      const firstOf = async () => {
        for await (const m of queue.consume({ batch: 3, wait: 0 })) return m;
        return undefined;
      };
      const first = await firstOf();
      expect(Object.values(await queue.shardSizes())[0]).toEqual({ size: 2, uacked: 1 });
      await expect(
        (async () => {
          for await (const m of queue.consume({ batch: 2, wait: 0 })) throw new Error(`handler failed on ${m.id}`);
        })(),
      ).rejects.toThrow(/handler failed/);
      expect(Object.values(await queue.shardSizes())[0]).toEqual({ size: 1, uacked: 2 });
      expect(first).toBeDefined();
      await queue.close();
    });

    it('release hands a lease back, visible now; getUnackTime follows the lease', async () => {
      const { queue, time } = make(mode);
      await queue.push([{ id: 'a', payload: 'A' }]);
      const [m] = await queue.pop(1);
      expect(await queue.getUnackTime('a')).toBe(m!.leaseDeadline);
      expect(await queue.getUnackTime('never-pushed')).toBeNull();
      if (mode === 'atomic') expect(await queue.release('a', 'not-the-token')).toBe(false);
      expect(await queue.release('a', m!.token)).toBe(true);
      expect(await queue.release('a', m!.token)).toBe(false);
      expect(await queue.getUnackTime('a')).toBeNull();
      await time.advance(1);
      const [again] = await queue.pop(1);
      expect(again?.id).toBe('a');
      if (mode === 'atomic') {
        // the released lease's token no longer acks
        expect(await queue.ack('a', m!.token)).toBe(false);
      }
      expect(await queue.ack('a', again!.token)).toBe(true);
      expect(await queue.release('bad id', 'x')).toBe(false);
      await queue.close();
    });

    it('a waiting pop whose store fails midway returns what it had already leased, with the error', async () => {
      const time = new FakeTime();
      const base = backend.store();
      // atomic: the second pop script fails; legacy: the third un-ack ZADD of the claim step fails
      const store =
        mode === 'atomic'
          ? failingOn(base, (prop, args) => prop === 'runScript' && (args[0] as { name: string }).name === 'atomicPop', 2)
          : failingOn(base, (prop) => prop === 'zadd', 3);
      const { queue } = make(mode, {}, store, time);
      const other = make(mode, { name: queue.name }, base, time).queue;
      await other.push(mode === 'atomic' ? msgs(1) : msgs(3));
      const popping = queue.pop(3, { wait: 1_000 });
      if (mode === 'atomic') {
        // the first attempt leases m0 and sleeps; the next attempt fails
        for (let i = 0; i < 1_000 && time.pendingTimers === 0; i++) await settle(1);
        await time.advance(10);
      }
      const got = await popping;
      expect(String(got.error)).toMatch('injected store failure');
      const kept = mode === 'atomic' ? 1 : 2;
      expect(got).toHaveLength(kept);
      // the leases are the caller's, not handed back behind its back (issue 31, item 4)
      expect(Object.values(await other.shardSizes())[0]!.uacked).toBe(kept);
      for (const m of got) expect(await queue.release(m.id, m.token)).toBe(true);
      expect((await other.pop(3)).length).toBe(mode === 'atomic' ? 1 : 3);
      await queue.close();
      await other.close();
    });

    it('ack, ackMany, release and setUnackTimeout work after close(); other calls refuse', async () => {
      const { queue } = make(mode);
      await queue.push(msgs(4));
      const popped = await queue.pop(4);
      await queue.close();
      expect(await queue.ack(popped[0]!.id, popped[0]!.token)).toBe(true);
      expect(await queue.setUnackTimeout(popped[1]!.id, 5_000, popped[1]!.token)).toBe(true);
      expect(await queue.release(popped[1]!.id, popped[1]!.token)).toBe(true);
      expect(await queue.ackMany([popped[2]!, { id: popped[3]!.id, token: popped[3]!.token }, { id: 'gone' }])).toEqual([true, true, false]);
      await expect(queue.pop(1)).rejects.toMatchObject({ code: 'QUEUE_CLOSED' });
      await expect(queue.ackMany('m1' as never)).rejects.toBeInstanceOf(InvalidArgumentError);
    });

    it('getAllMessages, atomicRemove, pop(0) and lookups of ids that could never be pushed', async () => {
      const { queue } = make(mode);
      await queue.push(msgs(40));
      expect((await queue.getAllMessages()).map((m) => m.id).sort()).toEqual(msgs(40).map((m) => m.id).sort());
      expect(await queue.pop(0)).toEqual([]);
      expect(await queue.bulkPop(0)).toEqual([]);
      const [m] = await queue.pop(1);
      expect(await queue.atomicRemove(m!.id)).toBe(true);
      expect(await queue.atomicRemove('m39')).toBe(true);
      expect(await queue.atomicRemove('m39')).toBe(false);
      expect(await queue.get('m39')).toBeNull();
      expect(await queue.size()).toBe(38);
      for (const id of ['', 'has space', 'x'.repeat(257), 'brace{x}']) {
        expect(await queue.get(id)).toBeNull();
        expect(await queue.localGet(id)).toBeNull();
        expect(await queue.remove(id)).toBe(false);
        expect(await queue.atomicRemove(id)).toBe(false);
        expect(await queue.ack(id)).toBe(false);
        expect(await queue.popWithMsgId(id)).toBeNull();
        expect(await queue.setTimeout(id, 10)).toBe(false);
        expect(await queue.setUnackTimeout(id, 10)).toBe(false);
        expect(await queue.getUnackTime(id)).toBeNull();
      }
      await queue.close();
    });

    it('a custom sharding strategy naming an unknown shard is refused before anything is written', async () => {
      const { queue } = make(mode, {
        shards: { allShards: ['a', 'b'], currentShard: 'a' },
        sharding: { name: 'custom', nextShard: (_all: readonly string[], m: { id: string }) => (m.id === 'lost' ? 'zz' : 'a') },
      });
      await expect(queue.push([{ id: 'fine', payload: 'x' }, { id: 'lost', payload: 'y' }])).rejects.toMatchObject({
        name: 'InvalidArgumentError',
        argument: 'sharding',
      });
      expect(await queue.get('fine')).toBeNull();
      expect(await queue.get('lost')).toBeNull();
      expect(await queue.getAllMessages()).toEqual([]);
      await queue.close();
    });
  });
});
