import { describe, expect, it } from 'vitest';
import { DurabilityError, InvalidArgumentError, InvalidMessageError, QueueClosedError } from '../../src/queue/errors.js';
import { validateDelay, validateId, validateMessageInput, validatePriority } from '../../src/queue/message.js';
import { parseStoredMessage } from '../../src/queue/stored-message.js';
import { parseQueueOptions } from '../../src/queue/options.js';
import { HashSharding, RoundRobinSharding, shardingStrategy } from '../../src/queue/sharding.js';
import { FakeTime } from '../support/fake-time.js';

const limits = { maxPayloadBytes: 8 };
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const thrown = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('error messages say what is wrong and where', () => {
  it.each([
    [() => validateId(''), 'id', 'invalid message: id must not be empty'],
    [() => validateId(7), 'id', 'invalid message: id must be a string'],
    [() => validateId('x'.repeat(257)), 'id', 'invalid message: id must be at most 256 characters'],
    [() => validateId('a b'), 'id', 'invalid message: id may only contain letters, digits and _-.:@/+=~ (got "a b")'],
    [() => validateDelay(-1, 'timeout', 'm'), 'timeout', 'invalid message "m": timeout must not be negative'],
    [() => validateDelay(Number.NaN, 'timeout'), 'timeout', 'invalid message: timeout must be a number of milliseconds'],
    [() => validateDelay('5', 'timeout'), 'timeout', 'invalid message: timeout must be a number of milliseconds'],
    [() => validateDelay(Infinity, 'timeout'), 'timeout', 'invalid message: timeout must be finite'],
    [() => validateDelay(1.5, 'timeout'), 'timeout', 'invalid message: timeout must be a whole number of milliseconds'],
    [() => validateDelay(2 ** 41, 'timeout'), 'timeout', `invalid message: timeout must be at most ${2 ** 40} ms`],
    [() => validatePriority(100, 'm'), 'priority', 'invalid message "m": priority must be an integer from 0 to 99'],
    [() => validateMessageInput(null, limits), 'message', 'invalid message: message must be an object'],
    [() => validateMessageInput({ id: 'm', payload: 5 }, limits), 'payload', 'invalid message "m": payload must be a string'],
    [() => validateMessageInput({ id: 'm', payload: 'ééééé' }, limits), 'payload', 'invalid message "m": payload is 10 bytes, over the limit of 8'],
  ])('%#: %s', (fn, field, text) => {
    const err = thrown(fn);
    expect(err).toBeInstanceOf(InvalidMessageError);
    expect((err as InvalidMessageError).field).toBe(field);
    expect((err as InvalidMessageError).code).toBe('INVALID_MESSAGE');
    expect(message(err)).toBe(text);
  });

  it('accepts the boundaries', () => {
    expect(validateMessageInput({ id: 'a'.repeat(256), payload: '12345678', timeout: 2 ** 40, priority: 99 }, limits)).toMatchObject({ timeout: 2 ** 40, priority: 99 });
    expect(validateMessageInput({ id: 'x', payload: '' }, limits)).toEqual({ id: 'x', payload: '', timeout: 0, priority: 0 });
    expect(validatePriority(0)).toBe(0);
  });

  it('names the option, and checks cross-field rules', () => {
    const time = new FakeTime();
    const store = { runScript: () => Promise.resolve(null) } as never;
    const base = { name: 'q', quorum: store, clock: time, timers: time };
    const cases: [object, string][] = [
      [{ ...base, name: 'a.b' }, 'invalid option name: queue name may only contain letters, digits, _ - :'],
      [{ ...base, shards: { allShards: ['a'], currentShard: 'b' } }, 'invalid option shards: currentShard must be one of allShards'],
      [{ ...base, shards: { allShards: ['a', 'a'], currentShard: 'a' } }, 'invalid option shards: shard names must be unique'],
      [{ ...base, mode: 'legacy', durable: { replicas: 1, timeoutMs: 10 } }, 'invalid option mode: serverTime, durable, promoteInReaper and requireLeaseToken are atomic-mode options'],
      [{ ...base, mode: 'legacy', promoteInReaper: true }, 'invalid option mode: serverTime, durable, promoteInReaper and requireLeaseToken are atomic-mode options'],
      [{ ...base, quorum: {} }, 'invalid option quorum: quorum must be a Store'],
      [{ ...base, clock: {} }, 'invalid option clock: clock must have now()'],
    ];
    for (const [input, text] of cases) {
      const err = thrown(() => parseQueueOptions(input as never));
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect(message(err)).toBe(text);
    }
    const ok = parseQueueOptions(base as never);
    expect(ok).toMatchObject({ prefix: 'dynoq', mode: 'atomic', unackTimeout: 60_000, unackInterval: 1_000, pollInterval: 10, maxPayloadBytes: 512 * 1024, hashTag: false, serverTime: false });
  });

  it('other typed errors carry their context', () => {
    expect(new QueueClosedError('q').message).toBe('queue q is closed');
    const d = new DurabilityError('push', ['a', 'b'], 2, 1);
    expect([d.message, d.code, d.wanted, d.confirmed]).toEqual(['push of 2 message(s) confirmed by 1 of 2 replicas', 'NOT_DURABLE', 2, 1]);
    expect(new InvalidArgumentError('count', 'must be positive').message).toBe('invalid count: must be positive');
  });

  it('stored messages parse leniently but never throw', () => {
    expect(parseStoredMessage(null)).toBeNull();
    expect(parseStoredMessage('{not json')).toBeNull();
    expect(parseStoredMessage('{"id":"a"}')).toBeNull();
    expect(parseStoredMessage('{"id":"a","payload":"p"}')).toEqual({ id: 'a', payload: 'p', timeout: 0, priority: 0, shard: '' });
  });

  it('sharding: round-robin starts at the second shard (as Dyno) and hashing is stable', () => {
    const rr = new RoundRobinSharding();
    expect([1, 2, 3, 4].map(() => rr.nextShard(['a', 'b', 'c']))).toEqual(['b', 'c', 'a', 'b']);
    const h = new HashSharding();
    expect(h.nextShard(['a', 'b', 'c'], { id: 'order-42' })).toBe(h.nextShard(['a', 'b', 'c'], { id: 'order-42' }));
    const spread = new Set(Array.from({ length: 50 }, (_, i) => h.nextShard(['a', 'b', 'c'], { id: `m${i}` })));
    expect(spread.size).toBe(3);
    expect(shardingStrategy('hash').name).toBe('hash');
    expect(shardingStrategy('round-robin').name).toBe('round-robin');
    expect(shardingStrategy(h)).toBe(h);
  });
});

describe('typed errors and option guards, case by case', () => {
  it('every error class has its own name and stable code', () => {
    const cases: [Error & { code: string }, string, string][] = [
      [new InvalidMessageError('id', 'bad'), 'InvalidMessageError', 'INVALID_MESSAGE'],
      [new InvalidArgumentError('count', 'bad'), 'InvalidArgumentError', 'INVALID_ARGUMENT'],
      [new QueueClosedError('q'), 'QueueClosedError', 'QUEUE_CLOSED'],
      [new DurabilityError('ack', ['a'], 1, 0), 'DurabilityError', 'NOT_DURABLE'],
    ];
    for (const [err, name, code] of cases) expect([err.name, err.code, String(err).startsWith(`${name}: `)]).toEqual([name, code, true]);
  });

  it('injected collaborators must be objects with the right method', () => {
    const time = new FakeTime();
    const store = { runScript: () => Promise.resolve(null) } as never;
    const base = { name: 'q', quorum: store, clock: time, timers: time };
    const rejected: [object, string][] = [
      [{ ...base, quorum: null }, 'quorum'],
      [{ ...base, quorum: () => null }, 'quorum'],
      [{ ...base, quorum: { runScript: 1 } }, 'quorum'],
      [{ ...base, nonQuorum: 'redis' }, 'nonQuorum'],
      [{ ...base, clock: null }, 'clock'],
      [{ ...base, clock: { now: 5 } }, 'clock'],
      [{ ...base, timers: null }, 'timers'],
      [{ ...base, timers: { setTimeout: 1 } }, 'timers'],
      [{ ...base, timers: undefined }, 'timers'],
      [{ ...base, durable: { replicas: 0, timeoutMs: 10 } }, 'durable.replicas'],
      [{ ...base, sharding: null }, 'sharding'],
      [{ ...base, sharding: { nextShard: 'a' } }, 'sharding'],
      [{ ...base, sharding: 'random' }, 'sharding'],
      [{ ...base, onReaperError: 'log' }, 'onReaperError'],
      [{ ...base, extra: 1 }, 'options'],
    ];
    for (const [input, path] of rejected) {
      const err = thrown(() => parseQueueOptions(input as never));
      expect(err, path).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument, JSON.stringify(Object.keys(input))).toBe(`option ${path}`);
    }
    expect(thrown(() => parseQueueOptions(undefined as never))).toMatchObject({ argument: 'option options' });
    const callableClock = Object.assign(() => 0, { now: () => 0 });
    expect(parseQueueOptions({ ...base, clock: callableClock } as never).clock).toBe(callableClock);
    const strategy = { name: 'mine', nextShard: () => 'a' };
    expect(parseQueueOptions({ ...base, sharding: strategy, onReaperError: () => undefined, nonQuorum: store } as never).sharding).toBe(strategy);
  });

  it('a message that is not an object is named as such, not by a missing field', () => {
    for (const input of ['m', 5, undefined, null]) {
      expect(thrown(() => validateMessageInput(input, limits))).toMatchObject({ field: 'message', reason: 'must be an object' });
    }
  });

  it('a stored entry without a string id or payload is corrupt', () => {
    expect(parseStoredMessage('{"payload":"p"}')).toBeNull();
    expect(parseStoredMessage('{"id":5,"payload":"p"}')).toBeNull();
    expect(parseStoredMessage('{"id":"a","payload":5}')).toBeNull();
    expect(parseStoredMessage('null')).toBeNull();
    expect(parseStoredMessage('{"id":"a","payload":"p","timeout":"7","priority":3,"shard":"b"}')).toEqual({ id: 'a', payload: 'p', timeout: 7, priority: 3, shard: 'b' });
  });

  it('hash sharding is FNV-1a of the id (published test vectors) modulo the shard count', () => {
    const shards = Array.from({ length: 1_000 }, (_, i) => `s${i}`);
    const h = new HashSharding();
    // FNV-1a 32: "a" → 0xe40c292c, "foobar" → 0xbf9cf968, "" → 0x811c9dc5
    expect(h.nextShard(shards, { id: 'a' })).toBe(`s${0xe40c292c % 1_000}`);
    expect(h.nextShard(shards, { id: 'foobar' })).toBe(`s${0xbf9cf968 % 1_000}`);
    expect(h.nextShard(shards, { id: '' })).toBe(`s${0x811c9dc5 % 1_000}`);
  });
});
