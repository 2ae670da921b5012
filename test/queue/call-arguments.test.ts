import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import { parseQueueOptions } from '../../src/queue/options.js';
import { FakeTime } from '../support/fake-time.js';

/** Per-call arguments are refused as clearly as createQueue's options, before the store is used. */
describe.each<QueueMode>(['atomic', 'legacy'])('call arguments (%s)', (mode) => {
  const time = new FakeTime();
  let calls = 0;
  const store = {
    runScript: () => {
      calls++;
      return Promise.resolve(null);
    },
  } as never;
  const queue = createQueue({ name: 'q', mode, quorum: store, clock: time, timers: time, unackInterval: 0 });

  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return (err as InvalidArgumentError).message;
  };

  it('consume: an unknown key is refused, not ignored', async () => {
    expect(await refusal(queue.consume({ bacth: 5 } as never).next())).toBe('invalid consume options: unknown key "bacth" (known: batch, wait, signal, onError, onLeasesKeptBack)');
    expect(await refusal(queue.consume(5 as never).next())).toBe('invalid consume options: must be an object (got 5)');
  });

  it('consume: a bad batch is named batch', async () => {
    expect(await refusal(queue.consume({ batch: 0 }).next())).toBe('invalid batch: must be an integer from 1 to 10000 (got 0)');
  });

  it('pop: a string count says it was a string; unknown option keys are refused', async () => {
    expect(await refusal(queue.pop('2' as never))).toBe('invalid count: must be an integer from 1 to 10000 (got "2" (a string))');
    expect(await refusal(queue.pop(1, { wiat: 10 } as never))).toBe('invalid pop options: unknown key "wiat" (known: wait, signal)');
    expect(await refusal(queue.bulkPop(1, { wiat: 10 } as never))).toBe('invalid pop options: unknown key "wiat" (known: wait, signal)');
    expect(await refusal(queue.pop(1, { wait: '5' } as never))).toBe('invalid wait: must be a finite number of ms ≥ 0 (got "5" (a string))');
    expect(calls).toBe(0);
  });
});

describe('unackTimeout', () => {
  const time = new FakeTime();
  const base = { name: 'q', quorum: { runScript: () => Promise.resolve(null) } as never, clock: time, timers: time };

  it('must be at least 1 ms, as the simulator’s unackTimeoutMs (a 0 ms lease ends as the pop returns)', () => {
    expect(() => parseQueueOptions({ ...base, unackTimeout: 0 })).toThrow(InvalidArgumentError);
    expect(() => parseQueueOptions({ ...base, unackTimeout: 0 })).toThrow('invalid option unackTimeout: must be at least 1 ms');
    expect(parseQueueOptions({ ...base, unackTimeout: 1 }).unackTimeout).toBe(1);
  });
});
