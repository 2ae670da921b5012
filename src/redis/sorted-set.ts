import { stringBytes } from './memory.js';

/** One sorted-set member. */
interface ZEntry {
  readonly member: string;
  readonly score: number;
}

/** Redis orders members by score, then by member bytes (ids are ASCII, so code units agree). */
function compareEntries(a: ZEntry, b: ZEntry): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.member < b.member ? -1 : a.member > b.member ? 1 : 0;
}

const CHUNK = 256;

/**
 * A Redis sorted set: a member → score map plus the members in (score, member) order, kept in
 * sorted chunks so that insert, remove and rank stay cheap at a million members.
 */
export class SortedSet {
  private scores = new Map<string, number>();
  private chunks: ZEntry[][] = [];
  /** The members' string bytes (memory.ts), kept as members come and go: the memory estimate reads it per write. */
  private bytes = 0;

  get size(): number {
    return this.scores.size;
  }

  /** The sum of `stringBytes` over the members. */
  get memberBytes(): number {
    return this.bytes;
  }

  /** An independent copy (entries are immutable, so the copy shares them). */
  clone(): SortedSet {
    const z = new SortedSet();
    z.scores = new Map(this.scores);
    z.chunks = this.chunks.map((c) => c.slice());
    z.bytes = this.bytes;
    return z;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** Returns true when the member is new. */
  set(member: string, score: number): boolean {
    const old = this.scores.get(member);
    if (old !== undefined) {
      if (old === score) return false;
      this.removeEntry({ member, score: old });
    }
    this.scores.set(member, score);
    this.insertEntry({ member, score });
    if (old === undefined) this.bytes += stringBytes(member);
    return old === undefined;
  }

  delete(member: string): boolean {
    const old = this.scores.get(member);
    if (old === undefined) return false;
    this.scores.delete(member);
    this.removeEntry({ member, score: old });
    this.bytes -= stringBytes(member);
    return true;
  }

  rank(member: string): number | undefined {
    const score = this.scores.get(member);
    if (score === undefined) return undefined;
    const target = { member, score };
    let before = 0;
    for (const chunk of this.chunks) {
      const last = chunk[chunk.length - 1]!;
      if (compareEntries(last, target) < 0) {
        before += chunk.length;
        continue;
      }
      return before + lowerBound(chunk, target);
    }
    return undefined;
  }

  /** Entries in order from rank `start` to `stop` inclusive (non-negative, already clamped). */
  byRank(start: number, stop: number): ZEntry[] {
    const out: ZEntry[] = [];
    let offset = 0;
    for (const chunk of this.chunks) {
      if (offset + chunk.length <= start) {
        offset += chunk.length;
        continue;
      }
      for (let i = Math.max(0, start - offset); i < chunk.length && offset + i <= stop; i++) out.push(chunk[i]!);
      offset += chunk.length;
      if (offset > stop) break;
    }
    return out;
  }

  /** Entries whose score passes both bound tests, in order, after skipping `offset`, at most `count` (<0: all). */
  byScore(
    above: (score: number) => boolean,
    below: (score: number) => boolean,
    offset: number,
    count: number,
  ): ZEntry[] {
    const out: ZEntry[] = [];
    let skipped = 0;
    for (const chunk of this.chunks) {
      if (!above(chunk[chunk.length - 1]!.score)) continue;
      for (const e of chunk) {
        if (!above(e.score)) continue;
        if (!below(e.score)) return out;
        if (skipped < offset) {
          skipped++;
          continue;
        }
        if (count >= 0 && out.length >= count) return out;
        out.push(e);
      }
    }
    return out;
  }

  *entries(): IterableIterator<ZEntry> {
    for (const chunk of this.chunks) yield* chunk;
  }

  private chunkFor(entry: ZEntry): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid]!;
      if (compareEntries(chunk[chunk.length - 1]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insertEntry(entry: ZEntry): void {
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    const ci = this.chunkFor(entry);
    const chunk = this.chunks[ci]!;
    chunk.splice(lowerBound(chunk, entry), 0, entry);
    if (chunk.length > 2 * CHUNK) this.chunks.splice(ci, 1, chunk.slice(0, CHUNK), chunk.slice(CHUNK));
  }

  private removeEntry(entry: ZEntry): void {
    const ci = this.chunkFor(entry);
    const chunk = this.chunks[ci]!;
    const i = lowerBound(chunk, entry);
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(ci, 1);
  }
}

function lowerBound(chunk: readonly ZEntry[], target: ZEntry): number {
  let lo = 0;
  let hi = chunk.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareEntries(chunk[mid]!, target) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
