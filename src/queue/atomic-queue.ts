import type { ScriptReply } from '../redis/script.js';
import { parseStoredMessage, storedMessageJson } from './stored-message.js';
import { BaseQueue } from './base-queue.js';
import type { AckAndPop, ShardSize } from './dyno-queue.js';
import { DurabilityError, InvalidArgumentError, UnsupportedOnStoreError } from './errors.js';
import type { QueueOptions } from './options.js';
import type { Message, MessageInput, PoppedMessage } from './message.js';
import { validateId, validateMessageInput } from './message.js';

const FIND_STALE_LIMIT = 1_000;

/**
 * The default mode: every state change is one script on one slot; due messages come out by
 * (priority, push order); pops hand out lease tokens that ack / setUnackTimeout honour; the reaper
 * re-checks expiry inside its script; a re-queued message keeps its priority.
 */
export class AtomicQueue extends BaseQueue {
  readonly mode = 'atomic' as const;
  /** The last ordering key handed out: ordering keys of one instance strictly increase. */
  private lastOrd = 0;

  constructor(options: QueueOptions) {
    for (const store of new Set([options.quorum, options.nonQuorum ?? options.quorum])) {
      if (store.replication !== 'dynomite') continue;
      if (options.serverTime) {
        throw new UnsupportedOnStoreError(
          'serverTime',
          'Dynomite',
          "every replica re-runs the script with its own clock (TIME inside a script is each replica's), so deadlines and replies would differ per replica; use the client clock",
        );
      }
      if (options.durable) {
        throw new UnsupportedOnStoreError('durable', 'Dynomite', 'Dynomite has no WAIT (it closes the connection, after the write was applied)');
      }
    }
    super(options);
  }

  /**
   * The ordering key of a push: the client's clock in ms, bumped past the previous one so that one
   * instance's pushes keep their order within a millisecond. It is an argument of the script, never
   * a server-side counter, so every replica that re-executes the push ranks it the same.
   */
  private nextOrd(): number {
    this.lastOrd = Math.max(Math.floor(this.options.clock.now()), this.lastOrd + 1);
    return this.lastOrd;
  }

  private async confirmDurable(operation: string, ids: readonly string[]): Promise<void> {
    const durable = this.options.durable;
    if (!durable || ids.length === 0) return;
    const confirmed = await this.quorum.wait(durable.replicas, durable.timeoutMs);
    if (confirmed < durable.replicas) throw new DurabilityError(operation, ids, durable.replicas, confirmed);
  }

  /** Validates every message first (nothing is written if one is bad), then writes them in one script. */
  private async write(messages: readonly MessageInput[], onlyIfAbsent: boolean): Promise<{ ids: string[]; written: number }> {
    const valid = messages.map((m) => validateMessageInput(m, this.options));
    const ids = valid.map((m) => m.id);
    if (valid.length === 0) return { ids, written: 0 };
    const entries = valid.map((m) => {
      const shard = this.sharding.nextShard(this.allShards, m);
      const shardIndex = this.allShards.indexOf(shard) + 1;
      if (shardIndex === 0) throw new InvalidArgumentError('sharding', `strategy returned unknown shard ${shard}`);
      return { shardIndex, id: m.id, priority: m.priority, timeout: m.timeout, json: storedMessageJson({ ...m, shard }), ord: this.nextOrd() };
    });
    const written = Number(await this.runScript(this.scripts.push(entries, onlyIfAbsent)));
    await this.confirmDurable('push', ids);
    return { ids, written };
  }

  async push(messages: readonly MessageInput[]): Promise<string[]> {
    this.checkOpen();
    return (await this.write(messages, false)).ids;
  }

  async ensure(message: MessageInput): Promise<boolean> {
    this.checkOpen();
    return (await this.write([message], true)).written > 0;
  }

  protected async popOnce(count: number): Promise<PoppedMessage[]> {
    return leasedMessages(await this.runScript(this.scripts.pop(count, this.options.unackTimeout, this.options.randomId())));
  }

  async popWithMsgId(id: string): Promise<PoppedMessage | null> {
    this.checkOpen();
    return leasedMessages(await this.runScript(this.scripts.popById(validateId(id), this.options.unackTimeout, this.options.randomId())))[0] ?? null;
  }

  async peek(count: number): Promise<Message[]> {
    this.checkOpen();
    this.checkCount(count);
    const flat = (await this.runScript(this.scripts.peek(count))) as string[];
    // [id, payload]* : the payloads are at the odd positions
    return flat
      .filter((_, i) => i % 2 === 1)
      .map((json) => parseStoredMessage(json))
      .filter((m): m is Message => m !== null);
  }

  async ack(id: string, token?: string): Promise<boolean> {
    this.checkOpen();
    validateId(id);
    const acked = (await this.runScript(this.scripts.ack(id, token ?? ''))) === 1;
    if (acked) await this.confirmDurable('ack', [id]);
    return acked;
  }

  override async ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop> {
    this.checkOpen();
    validateId(id);
    this.checkCount(count);
    const reply = (await this.runScript(this.scripts.ackAndPop(id, token ?? '', count, this.options.unackTimeout, this.options.randomId()))) as ScriptReply[];
    const acked = reply[0] === 1;
    if (acked) await this.confirmDurable('ack', [id]);
    return { acked, messages: leasedMessages(reply.slice(1)) };
  }

  async setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean> {
    this.checkOpen();
    validateId(id);
    this.checkTimeout(timeoutMs);
    return (await this.runScript(this.scripts.extendLease(id, token ?? '', timeoutMs))) === 1;
  }

  /** Reschedules a queued message; the stored `timeout` field keeps the delay given at push. */
  async setTimeout(id: string, timeoutMs: number): Promise<boolean> {
    this.checkOpen();
    validateId(id);
    this.checkTimeout(timeoutMs);
    return (await this.runScript(this.scripts.reschedule(id, timeoutMs))) === 1;
  }

  async remove(id: string): Promise<boolean> {
    this.checkOpen();
    validateId(id);
    return (await this.runScript(this.scripts.remove(id))) === 1;
  }

  private async findIdByPattern(pattern: string, localShardOnly: boolean): Promise<string | null> {
    this.checkOpen();
    const s = this.localShard;
    const localSets = localShardOnly ? [this.keys.queue(s), this.keys.ready(s)] : [];
    const reply = await this.runScript(this.scripts.findByPayload(this.checkPattern(pattern), localSets));
    return typeof reply === 'string' ? reply : null;
  }

  async containsPredicate(pattern: string, localShardOnly = false): Promise<boolean> {
    return (await this.findIdByPattern(pattern, localShardOnly)) !== null;
  }

  async getMsgWithPredicate(pattern: string, localShardOnly = false): Promise<Message | null> {
    const id = await this.findIdByPattern(pattern, localShardOnly);
    return id === null ? null : this.get(id);
  }

  async popMsgWithPredicate(pattern: string, localShardOnly = false): Promise<PoppedMessage | null> {
    const id = await this.findIdByPattern(pattern, localShardOnly);
    return id === null ? null : this.popWithMsgId(id);
  }

  async size(): Promise<number> {
    const sizes = await this.shardSizes();
    return Object.values(sizes).reduce((sum, s) => sum + s.size, 0);
  }

  async shardSizes(): Promise<Record<string, ShardSize>> {
    this.checkOpen();
    const out: Record<string, ShardSize> = {};
    for (const shard of this.allShards) {
      const queued = await this.nonQuorum.zcard(this.keys.queue(shard));
      const ready = await this.nonQuorum.zcard(this.keys.ready(shard));
      out[shard] = { size: queued + ready, uacked: await this.nonQuorum.zcard(this.keys.unack(shard)) };
    }
    return out;
  }

  async clear(): Promise<void> {
    this.checkOpen();
    const sets = this.allShards.flatMap((s) => [this.keys.queue(s), this.keys.ready(s), this.keys.unack(s)]);
    await this.quorum.del([...sets, this.keys.message, this.keys.meta, this.keys.leases, this.keys.counters]);
  }

  async processUnacks(): Promise<number> {
    this.checkOpen();
    return Number((await this.runScript(this.scripts.requeueExpired(this.options.reaperBatch))) ?? 0);
  }

  /** In atomic mode processUnacks is already one script. */
  atomicProcessUnacks(): Promise<number> {
    return this.processUnacks();
  }

  async findStaleMessages(): Promise<string[]> {
    this.checkOpen();
    const reply = await this.runScript(this.scripts.findStale(FIND_STALE_LIMIT));
    return (reply as string[] | null) ?? [];
  }

  protected reap(): Promise<number> {
    return this.processUnacks();
  }
}

/** Flat [id, payload, token, deadline]* replies to messages. */
function leasedMessages(reply: ScriptReply): PoppedMessage[] {
  const flat = (reply as ScriptReply[] | null) ?? [];
  const out: PoppedMessage[] = [];
  for (let i = 0; i + 3 < flat.length; i += 4) {
    const m = parseStoredMessage(flat[i + 1] as string);
    if (m) out.push({ ...m, token: String(flat[i + 2]), leaseDeadline: Number(flat[i + 3]) });
  }
  return out;
}
