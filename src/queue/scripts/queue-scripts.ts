import type { ScriptDef } from '../../redis/script.js';
import type { QueueKeys } from '../keys.js';
import { atomicAck } from './atomic-ack.js';
import { atomicAckAndPop } from './atomic-ack-and-pop.js';
import { atomicAckManyAndPop } from './atomic-ack-many-and-pop.js';
import { atomicExtendLease } from './atomic-extend-lease.js';
import { atomicFindStale } from './atomic-find-stale.js';
import { atomicPeek } from './atomic-peek.js';
import { atomicPop } from './atomic-pop.js';
import { atomicPopById } from './atomic-pop-by-id.js';
import { atomicPromote } from './atomic-promote.js';
import { atomicPush } from './atomic-push.js';
import { atomicRelease } from './atomic-release.js';
import { atomicRemove } from './atomic-remove.js';
import { atomicRequeueExpired } from './atomic-requeue-expired.js';
import { atomicReschedule } from './atomic-reschedule.js';
import { legacyBulkPopLocal } from './legacy-bulk-pop-local.js';
import { legacyFindStale } from './legacy-find-stale.js';
import { legacyProcessUnacks } from './legacy-process-unacks.js';
import { scanMessages } from './scan-messages.js';

/** One script call, ready for `Store.runScript`. */
export interface ScriptCall {
  readonly script: ScriptDef;
  readonly keys: readonly string[];
  readonly args: readonly string[];
}

/** A call of `script`; a script with a fixed key count is given exactly that many keys. */
function call(script: ScriptDef, keys: readonly string[], args: readonly string[]): ScriptCall {
  if (script.keyCount !== 'variable' && keys.length !== script.keyCount) {
    throw new Error(`${script.name} takes ${script.keyCount} keys, was given ${keys.length}`);
  }
  return { script, keys, args };
}

/** One message of an atomic push: its target shard's 1-based index and its stored form. */
interface PushEntry {
  readonly shardIndex: number;
  readonly id: string;
  readonly priority: number;
  readonly timeout: number;
  readonly json: string;
  /** The client's ordering key: a strictly increasing millisecond stamp of this queue instance. */
  readonly ord: number;
}

/**
 * Every script call the queue makes, with its KEYS and ARGV built here and nowhere else (as BullMQ's
 * `Scripts` class does): the order each script's Lua reads them in is written once, next to the
 * script's own KEYS/ARGV comment. `time()` is ARGV[1..2] of every time-dependent atomic script: the
 * client's now and the server-time flag.
 */
export class QueueScripts {
  constructor(
    private readonly keys: QueueKeys,
    private readonly allShards: readonly string[],
    private readonly localShard: string,
    private readonly time: () => readonly [string, string],
    /** Atomic: how long after its due time an id may be promoted (0 but on Dynomite). */
    private readonly settleMs = 0,
  ) {
    // The KEYS lists that never change for this queue, built once and frozen: a hot loop reuses them
    // (and the simulator's trace serializes a frozen list once).
    const s = localShard;
    const frozen = (keys: string[]): readonly string[] => Object.freeze(keys);
    this.localKeys = frozen([...this.head, keys.queue(s), keys.ready(s), keys.unack(s)]);
    this.pushKeys = frozen([...this.head, ...this.allShardSets()]);
    this.ackKeys = frozen([keys.message, keys.meta, keys.leases, ...this.allUnacks()]);
    this.ackThenPopKeys = frozen([...this.localKeys, ...this.allUnacks()]);
    this.requeueKeys = frozen([keys.message, keys.meta, keys.leases, keys.ready(s), keys.unack(s)]);
    this.promoteKeys = frozen([keys.meta, keys.queue(s), keys.ready(s)]);
  }

  /** head keys, then the local shard's queue, ready, unack. */
  private readonly localKeys: readonly string[];
  private readonly pushKeys: readonly string[];
  private readonly ackKeys: readonly string[];
  /** ackAndPop's and ackManyAndPop's: the local shard's keys, then every shard's UNACK. */
  private readonly ackThenPopKeys: readonly string[];
  private readonly requeueKeys: readonly string[];
  private readonly promoteKeys: readonly string[];

  private get head(): string[] {
    return [this.keys.message, this.keys.meta, this.keys.leases, this.keys.counters];
  }

  /** queue, ready, unack of every shard. */
  private allShardSets(): string[] {
    return this.allShards.flatMap((s) => [this.keys.queue(s), this.keys.ready(s), this.keys.unack(s)]);
  }

  private allUnacks(): string[] {
    return this.allShards.map((s) => this.keys.unack(s));
  }

  push(entries: readonly PushEntry[], onlyIfAbsent: boolean): ScriptCall {
    const args = [...this.time(), onlyIfAbsent ? '1' : '0', String(this.settleMs)];
    for (const e of entries) args.push(String(e.shardIndex), e.id, String(e.priority), String(e.timeout), e.json, String(e.ord));
    return call(atomicPush, this.pushKeys, args);
  }

  pop(count: number, unackTimeout: number, token: string): ScriptCall {
    return call(atomicPop, this.localKeys, [...this.time(), String(count), String(unackTimeout), token, String(this.settleMs)]);
  }

  promote(): ScriptCall {
    return call(atomicPromote, this.promoteKeys, [...this.time(), String(this.settleMs)]);
  }

  popById(id: string, unackTimeout: number, token: string): ScriptCall {
    return call(atomicPopById, this.localKeys, [...this.time(), id, String(unackTimeout), token]);
  }

  peek(count: number): ScriptCall {
    const s = this.localShard;
    return call(atomicPeek, [this.keys.message, this.keys.meta, this.keys.queue(s), this.keys.ready(s)], [...this.time(), String(count), String(this.settleMs)]);
  }

  ack(id: string, token: string): ScriptCall {
    return call(atomicAck, this.ackKeys, [id, token]);
  }

  ackAndPop(id: string, token: string, count: number, unackTimeout: number, newToken: string): ScriptCall {
    return call(atomicAckAndPop, this.ackThenPopKeys, [...this.time(), String(count), String(unackTimeout), id, token, newToken, String(this.settleMs)]);
  }

  /** Acks each (key, token) in order, then (count > 0) leases up to `count` under `newToken`. */
  ackManyAndPop(acks: readonly (readonly [string, string])[], count: number, unackTimeout: number, newToken: string): ScriptCall {
    const args = [...this.time(), String(count), String(unackTimeout), newToken, String(this.settleMs)];
    for (const [key, token] of acks) args.push(key, token);
    return call(atomicAckManyAndPop, this.ackThenPopKeys, args);
  }

  extendLease(id: string, token: string, timeoutMs: number): ScriptCall {
    return call(atomicExtendLease, [this.keys.leases, ...this.allUnacks()], [...this.time(), id, token, String(timeoutMs)]);
  }

  reschedule(id: string, timeoutMs: number): ScriptCall {
    return call(atomicReschedule, this.allShards.flatMap((s) => [this.keys.queue(s), this.keys.ready(s)]), [...this.time(), id, String(timeoutMs)]);
  }

  release(id: string, token: string): ScriptCall {
    const sets = this.allShards.flatMap((s) => [this.keys.ready(s), this.keys.unack(s)]);
    return call(atomicRelease, [this.keys.message, this.keys.meta, this.keys.leases, ...sets], [id, token]);
  }

  /** `token` '' and not required: the plain remove (ARGV id alone). */
  remove(id: string, token = '', tokenRequired = false): ScriptCall {
    const args = token === '' && !tokenRequired ? [id] : [id, token, tokenRequired ? '1' : '0'];
    return call(atomicRemove, [this.keys.message, this.keys.meta, this.keys.leases, ...this.allShardSets()], args);
  }

  requeueExpired(batch: number): ScriptCall {
    return call(atomicRequeueExpired, this.requeueKeys, [...this.time(), String(batch)]);
  }

  /** One page of the stale walk: `which` 0 is the message hash, k ≥ 1 the k-th of queue, ready, unack per shard. */
  findStale(which: number, cursor: string, count: number): ScriptCall {
    return call(atomicFindStale, [this.keys.message, ...this.allShardSets()], [String(which), cursor, String(count)]);
  }

  /** How many sorted sets the stale walk pages through after the message hash. */
  get staleWalkSets(): number {
    return this.allShards.length * 3;
  }

  /** One page of the message hash from `cursor`; `sets` restricts it to ids in those sorted sets. */
  scanMessages(cursor: string, count: number, sets: readonly string[]): ScriptCall {
    return call(scanMessages, [this.keys.message, ...sets], [cursor, String(count)]);
  }

  legacyBulkPop(ids: readonly string[], peekUntil: number, unackScore: number): ScriptCall {
    const s = this.localShard;
    return call(legacyBulkPopLocal, [this.keys.message, this.keys.queue(s), this.keys.unack(s)], [String(ids.length), String(peekUntil), String(unackScore), ...ids]);
  }

  legacyProcessUnacks(now: number, batch: number): ScriptCall {
    const s = this.localShard;
    return call(legacyProcessUnacks, [this.keys.message, this.keys.queue(s), this.keys.unack(s)], [String(now), String(batch)]);
  }

  /** Dyno's atomicRemove on legacy's keys: the atomic remove script over every shard's QUEUE and UNACK (META and LEASE stay empty in legacy). */
  legacyRemove(id: string): ScriptCall {
    const sets = this.allShards.flatMap((s) => [this.keys.queue(s), this.keys.unack(s)]);
    return call(atomicRemove, [this.keys.message, this.keys.meta, this.keys.leases, ...sets], [id]);
  }

  legacyFindStale(shard: string, ids: readonly string[]): ScriptCall {
    return call(legacyFindStale, [this.keys.message, this.keys.queue(shard), this.keys.unack(shard)], [String(ids.length), ...ids]);
  }
}
