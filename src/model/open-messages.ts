import type { AckOp, DeliverOp, EnsureOp, ExtendOp, HistoryOp, KeptBackOp, MessageOp, PushOp, ReleaseOp, RemoveOp, RescheduleOp } from './history.js';
import type { MessageOps } from './message-ops.js';

/** What a message with no operations of a type shares (nothing writes to a MessageOps' arrays). */
const NONE: never[] = [];

/** A message operation's list in MessageOps, in its order: pushes (and ensures), deliveries, kept-back leases, acks, extends, removes, reschedules, releases. */
function groupOf(type: MessageOp['type']): number {
  switch (type) {
    case 'push':
    case 'ensure':
      return 0;
    case 'deliver':
      return 1;
    case 'kept-back':
      return 2;
    case 'ack':
      return 3;
    case 'extend':
      return 4;
    case 'remove':
      return 5;
    case 'reschedule':
      return 6;
    case 'release':
      return 7;
  }
}

/**
 * The operations of the messages a streaming judge holds open at once (read, not yet judged), as
 * chains through one pool: a message is a number in a map, not nine growing arrays (the open
 * messages change by the million; their arrays were most of what the judge allocated). `take` hands
 * a message's operations over, in file order and grouped by type, and frees its slots.
 */
export class OpenMessages {
  private readonly slotOf = new Map<string, number>();
  /** Per message slot: its first and last operation (pool indices), and its ordinal (the order messages were first seen). */
  private head = new Int32Array(256);
  private tail = new Int32Array(256);
  private ordinals = new Float64Array(256);
  /** Free message slots, as a stack. */
  private freeSlots: number[] = [];
  private slots = 0;
  /** Per pool index: the operation, and the next of the same message's (-1: none). */
  private readonly pool: (MessageOp | undefined)[] = [];
  private next = new Int32Array(1024);
  /** Free pool indices, chained through `next` (-1: none). */
  private freeOps = -1;
  private nextOrdinal = 0;
  /** grouped's lists, reused (each list it returns is new). */
  private readonly lists: MessageOp[][] = [NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE];

  get size(): number {
    return this.slotOf.size;
  }

  /** Adds an operation to its message (opened now if new), in file order; the message's slot. */
  add(op: MessageOp): number {
    const k = this.opSlot(op);
    let s = this.slotOf.get(op.id);
    if (s === undefined) {
      s = this.messageSlot();
      this.slotOf.set(op.id, s);
      this.head[s] = k;
      this.ordinals[s] = this.nextOrdinal++;
    } else this.next[this.tail[s]!] = k;
    this.tail[s] = k;
    return s;
  }

  /** The ids still open, in the order they were opened. */
  ids(): string[] {
    return [...this.slotOf.keys()];
  }

  ordinalOf(slot: number): number {
    return this.ordinals[slot]!;
  }

  /** The open message's operations in file order (a copy; the message stays open). */
  opsOf(slot: number): HistoryOp[] {
    const out: HistoryOp[] = [];
    for (let k = this.head[slot]!; k >= 0; k = this.next[k]!) out.push(this.pool[k]!);
    return out;
  }

  /** The message's operations grouped by type, in file order (sortByReturn has not run); the message stays open until `close`. */
  grouped(slot: number): MessageOps {
    const lists = this.lists;
    lists.fill(NONE);
    for (let k = this.head[slot]!; k >= 0; k = this.next[k]!) {
      const op = this.pool[k]!;
      const g = groupOf(op.type);
      // Most messages have one operation of a type: a list of one is allocated at its size.
      if (lists[g] === NONE) lists[g] = [op];
      else lists[g]!.push(op);
    }
    return { pushes: lists[0] as (PushOp | EnsureOp)[], deliveries: lists[1] as DeliverOp[], keptBack: lists[2] as KeptBackOp[], acks: lists[3] as AckOp[], extends: lists[4] as ExtendOp[], removes: lists[5] as RemoveOp[], reschedules: lists[6] as RescheduleOp[], releases: lists[7] as ReleaseOp[] };
  }

  /** Forgets the message (its slots are reused). */
  close(id: string, slot: number): void {
    this.slotOf.delete(id);
    for (let k = this.head[slot]!; k >= 0; ) {
      const after = this.next[k]!;
      this.pool[k] = undefined;
      this.next[k] = this.freeOps;
      this.freeOps = k;
      k = after;
    }
    this.freeSlots.push(slot);
  }

  /** The slot of an open message (undefined when it is not open). */
  slotOfId(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  private opSlot(op: MessageOp): number {
    let k = this.freeOps;
    if (k >= 0) {
      this.freeOps = this.next[k]!;
      this.pool[k] = op;
    } else {
      k = this.pool.length;
      this.pool.push(op);
      if (k >= this.next.length) this.next = grown(this.next, k);
    }
    this.next[k] = -1;
    return k;
  }

  private messageSlot(): number {
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    const s = this.slots++;
    if (s >= this.head.length) {
      this.head = grown(this.head, s);
      this.tail = grown(this.tail, s);
      const ordinals = new Float64Array(this.head.length);
      ordinals.set(this.ordinals);
      this.ordinals = ordinals;
    }
    return s;
  }
}

/** A copy of `a` with room for index `k`. */
function grown(a: Int32Array<ArrayBuffer>, k: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(a.length * 2, k + 1));
  out.set(a);
  return out;
}
