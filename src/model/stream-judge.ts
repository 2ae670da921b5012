import { addShardPart, consumerPopFailed, judgeShardSets, messageJudge, judgeStopped, noFindings, noTallies, popsInFlightAtEnd, reportOf, shardPartOf, tallyMessage, tallyOp, type ShardPart, type ShardSets } from './checker.js';
import { extrasOf, noEndings, tallyEndings, type OpExtra } from './endings.js';
import { completeAtEnd, FaultSpans, HistoryFileError, historyLineOf, parseHistoryLine, plainOp, runOf, type HistoryLine, type RunLine } from './history-file.js';
import type { DeliverOp, HistoryOp, PopOp, RunPhases } from './history.js';
import { judgeReportOf, type JudgeOptions, type JudgeOverrides, type Judgement } from './judge.js';
import { hashIdString, parseOpBytes, scanLineBytes, scanned, settledPopLine } from './line-scan.js';
import { sortByReturn } from './message-ops.js';
import { OpenMessages } from './open-messages.js';

/**
 * Whole lines as UTF-8 bytes, each ending with a line break (the last one too), `count` of them: what
 * a file reader yields, read by the first pass without decoding. The reader checks they are UTF-8.
 */
export interface LineBytes {
  readonly bytes: Uint8Array;
  readonly count: number;
}

/**
 * A history file read as a stream: each call starts reading it again from the top and yields its
 * lines in batches — strings without their line breaks, or LineBytes; empty lines included, so that
 * line numbers hold. The CLI reads a file in byte chunks; a test can yield from an array.
 */
export type LineSource = () => AsyncIterable<readonly string[] | LineBytes>;

const decoder = new TextDecoder();

/** A batch's lines as strings (a byte batch decoded at once, then split). */
function textLines(batch: readonly string[] | LineBytes): readonly string[] {
  if (!('bytes' in batch)) return batch;
  const lines = decoder.decode(batch.bytes).split('\n');
  lines.pop();
  return lines;
}

/** A line without its surrounding white space: most lines have none, and trim() would copy them. */
function trimmed(raw: string): string {
  return raw.charCodeAt(0) === 123 && raw.charCodeAt(raw.length - 1) === 125 ? raw : raw.trim();
}

/**
 * Sees each message as the judge reads it (the HTML report draws from these, so that a history is
 * read as a stream for the picture too): `begin` once the first pass knows the phases, `message` with
 * each message's operations (in file order) when it is judged, `pop` with each pop call.
 */
export interface StreamObserver {
  begin?(phases: RunPhases, start: number, messages: number): void;
  message?(id: string, ops: readonly HistoryOp[], violated: boolean): void;
  pop?(op: PopOp): void;
}

/** What the streaming judge returns: a Judgement without the history itself (it was never held). */
export type StreamJudgement = Omit<Judgement, 'history'> & {
  /** Messages buffered at once at most, and shard parts kept for the end (what memory is bounded by). */
  readonly peak: { readonly messagesOpen: number; readonly shardParts: number };
  /** The first invocation in the history: where messages count their `t+N ms` from. */
  readonly start: number;
};

/**
 * Open addressing over a typed array: a 32-bit hash of each message id → the last line it appears on,
 * each hash next to its line (one cache line per look-up: the table outgrows the caches). Ids whose
 * hashes collide share an entry, whose last line is then the later of theirs: a message is never judged
 * before its last line; one that collided may be judged later (at the end), never wrongly.
 */
class LastLines {
  /** Slot i: its hash at 2i (0: empty), its last line at 2i + 1. */
  private slots = new Int32Array(2 << 16);
  /** Distinct hashes: the messages, but for the rare ids whose hashes collide. */
  size = 0;

  set(hash: number, line: number): void {
    let mask = (this.slots.length >> 1) - 1;
    let i = hash & mask;
    while (this.slots[2 * i] !== 0 && this.slots[2 * i] !== hash) i = (i + 1) & mask;
    if (this.slots[2 * i] === 0) {
      if (++this.size * 4 > this.slots.length) {
        this.grow();
        mask = (this.slots.length >> 1) - 1;
        i = hash & mask;
        while (this.slots[2 * i] !== 0) i = (i + 1) & mask;
      }
      this.slots[2 * i] = hash;
    }
    this.slots[2 * i + 1] = line;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    const mask = (this.slots.length >> 1) - 1;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j] === 0) continue;
      let i = old[j]! & mask;
      while (this.slots[2 * i] !== 0) i = (i + 1) & mask;
      this.slots[2 * i] = old[j]!;
      this.slots[2 * i + 1] = old[j + 1]!;
    }
  }

  /** One bit per line: set on the last line of each hash's ids. */
  bits(lineCount: number): Uint8Array {
    const bits = new Uint8Array((lineCount >> 3) + 1);
    for (let j = 0; j < this.slots.length; j += 2) {
      if (this.slots[j] === 0) continue;
      const line = this.slots[j + 1]!;
      bits[line >> 3]! |= 1 << (line & 7);
    }
    return bits;
  }
}

/** One bit per line, growing as lines are read. */
class LineBits {
  private bits = new Uint8Array(1 << 16);

  set(line: number): void {
    if (line >> 3 >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (line >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[line >> 3]! |= 1 << (line & 7);
  }

  has(line: number): boolean {
    return line >> 3 < this.bits.length && (this.bits[line >> 3]! & (1 << (line & 7))) !== 0;
  }
}

/**
 * What the first pass needs of a line, read with JSON.parse alone (no validation: the second pass
 * validates every line): its type, id and times. Undefined when the line is not a plain, completed
 * operation — a run or fault line, an unknown pop (late needs those), anything odd: the caller then
 * parses it properly (and a bad line is reported there).
 */
interface Scanned {
  readonly type: string;
  readonly id: string | undefined;
  readonly invokedAt: number;
  readonly completedAt: number;
}

function scanLine(line: string): Scanned | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { type, id, invokedAt, completedAt, outcome } = json as Record<string, unknown>;
  if (typeof type !== 'string' || type === 'run' || type === 'fault') return undefined;
  if (typeof invokedAt !== 'number' || typeof completedAt !== 'number') return undefined;
  if (type === 'pop' ? outcome !== 'ok' && outcome !== 'fail' : typeof id !== 'string') return undefined;
  return { type, id: typeof id === 'string' ? id : undefined, invokedAt, completedAt };
}

/** A delivery with only what the shard judgement reads (a line's own fields dropped). */
function slimDelivery(d: DeliverOp): DeliverOp {
  return { type: 'deliver', id: d.id, process: d.process, invokedAt: d.invokedAt, completedAt: d.completedAt, outcome: 'ok', leaseUntil: d.leaseUntil, ...(d.via !== undefined ? { via: d.via } : {}), ...(d.shard !== undefined ? { shard: d.shard } : {}) };
}

function slimPop(p: PopOp): PopOp {
  return { type: 'pop', process: p.process, invokedAt: p.invokedAt, completedAt: p.completedAt, outcome: p.outcome, via: p.via, delivered: p.delivered, ...(p.shard !== undefined ? { shard: p.shard } : {}), ...(p.id !== undefined ? { id: p.id } : {}) };
}

/** Every operation of the `needed` messages, in file order, read from the stream again (a call in flight completing at `end`, when given). */
export async function messageOps(source: LineSource, file: string, needed: ReadonlySet<string>, end?: number): Promise<Map<string, HistoryOp[]>> {
  const opsOf = new Map<string, HistoryOp[]>();
  let n = 0;
  for await (const batch of source()) {
    for (const raw of textLines(batch)) {
      n++;
      const line = trimmed(raw);
      if (line === '') continue;
      const s = scanLine(line);
      if (s && (s.type === 'pop' || s.id === undefined || !needed.has(s.id))) continue;
      const parsed = parseHistoryLine(line, file, n);
      if (parsed.kind !== 'op' || parsed.op.type === 'pop' || !needed.has(parsed.op.id)) continue;
      if (parsed.inFlight && end !== undefined) completeAtEnd(parsed.op, end);
      let list = opsOf.get(parsed.op.id);
      if (!list) opsOf.set(parsed.op.id, (list = []));
      list.push(parsed.op);
    }
  }
  return opsOf;
}

/** The extra fields of the operations of the `needed` messages, read from the stream again. */
async function collectExtras(source: LineSource, file: string, needed: ReadonlySet<string>, extrasById: Map<string, OpExtra[]>): Promise<void> {
  const opsOf = await messageOps(source, file, needed);
  for (const id of needed) extrasById.set(id, extrasOf(opsOf.get(id) ?? []));
}

/** Reads every line up to (not including) `upTo` as parseHistoryFile would, to report the first bad one. */
async function firstError(source: LineSource, file: string, upTo: number): Promise<void> {
  let n = 0;
  let run = false;
  const faults = new FaultSpans();
  for await (const batch of source()) {
    for (const raw of textLines(batch)) {
      if (++n >= upTo) return;
      const line = trimmed(raw);
      if (line === '') continue;
      const parsed = parseHistoryLine(line, file, n);
      if (parsed.kind === 'run') {
        if (run) throw new HistoryFileError(file, n, 'a second run line');
        run = true;
      } else if (parsed.kind === 'fault') faults.add(parsed.fault, file, n);
    }
  }
}

/**
 * Judges a history read as a stream, twice: the first pass notes the run line, the faults, the unknown
 * pops, the first and last times and, per message, the last line it appears on (a 32-bit hash of its
 * id: 8 bytes a message); the second buffers each message's operations until its last line, judges the
 * message with the checker's own per-message code and drops it. Memory is bounded by the messages open
 * at once — plus, when a delivery bound is set, each message's free intervals and deliveries and the
 * waiting pops, which the per-shard judgements (priority order, late) need at the end. The verdicts are
 * checkHistory's on the same history (a property test compares them).
 */
export async function judgeStream(source: LineSource, file = '<history>', overrides: JudgeOverrides = {}, options: JudgeOptions = {}, observer: StreamObserver = {}): Promise<StreamJudgement> {
  // Pass 1.
  const lastLines = new LastLines();
  // Pops the first pass found plainly valid and returned (ok or fail): without a delivery bound or an observer of pops, the second pass skips them.
  const settledPops = new LineBits();
  const faultSpans = new FaultSpans();
  const unknownPops: PopOp[] = [];
  const inFlightPops: PopOp[] = [];
  let run: RunLine | undefined;
  let first = Infinity;
  let last = -Infinity;
  let endLine = -Infinity;
  let ops = 0;
  let popsRecorded = false;
  let n = 0;
  // A line the scan declines (or a string batch's): parsed in full, then noted as a scanned one is.
  const slowLine = (line: string): void => {
    const s = scanLine(line);
    let type: string;
    let id: string | undefined;
    let invokedAt: number;
    let completedAt: number;
    if (s) {
      ({ type, id, invokedAt, completedAt } = s);
    } else {
      const parsed = parseHistoryLine(line, file, n);
      if (parsed.kind === 'run') {
        if (run) throw new HistoryFileError(file, n, 'a second run line');
        run = parsed.run;
        return;
      }
      if (parsed.kind === 'fault') {
        faultSpans.add(parsed.fault, file, n);
        return;
      }
      if (parsed.kind === 'end') {
        endLine = Math.max(endLine, parsed.at);
        return;
      }
      const op = parsed.op;
      ({ type, invokedAt, completedAt } = op);
      id = op.type === 'pop' ? undefined : op.id;
      if (op.type === 'pop' && op.outcome === 'unknown') {
        const pop = slimPop(op);
        unknownPops.push(pop);
        if (parsed.inFlight) inFlightPops.push(pop);
      }
    }
    ops++;
    if (type === 'pop') popsRecorded = true;
    if (invokedAt < first) first = invokedAt;
    if (completedAt > last) last = completedAt;
    if (type !== 'pop' && id !== undefined) lastLines.set(hashIdString(id), n);
  };
  try {
    for await (const batch of source()) {
      if (!('bytes' in batch)) {
        for (const raw of batch) {
          n++;
          const line = trimmed(raw);
          if (line !== '') slowLine(line);
        }
        continue;
      }
      const b = batch.bytes;
      for (let from = 0; from < b.length; ) {
        const to = b.indexOf(10, from);
        n++;
        if (settledPopLine(b, from, to)) {
          ops++;
          popsRecorded = true;
          if (scanned.invokedAt < first) first = scanned.invokedAt;
          if (scanned.completedAt > last) last = scanned.completedAt;
          settledPops.set(n);
        } else if (
          // The scan's plain line: a completed operation with numeric times (pops: ok or fail; others: a string id).
          scanLineBytes(b, from, to) && scanned.kind !== 'run' && scanned.kind !== 'fault' && scanned.kind !== 'end' && scanned.invokedAt === scanned.invokedAt && scanned.completedAt === scanned.completedAt && (scanned.kind === 'pop' ? scanned.decided : scanned.idHash !== 0)) {
          ops++;
          if (scanned.invokedAt < first) first = scanned.invokedAt;
          if (scanned.completedAt > last) last = scanned.completedAt;
          if (scanned.kind !== 'pop') lastLines.set(scanned.idHash, n);
          else popsRecorded = true;
        } else {
          const line = decoder.decode(b.subarray(from, to)).trim();
          if (line !== '') slowLine(line);
        }
        from = to + 1;
      }
    }
  } catch (err) {
    if (!(err instanceof HistoryFileError)) throw err;
    await firstError(source, file, err.line);
    throw err;
  }
  if (ops === 0) throw new HistoryFileError(file, 0, 'no operations');
  const { phases, settings } = runOf(run, first, last, file, overrides, endLine);
  for (const p of inFlightPops) completeAtEnd(p, phases.end);
  const popsAtEnd = popsInFlightAtEnd(unknownPops, phases.end);
  const lineCount = n;
  const isLast = lastLines.bits(lineCount);
  const faults = faultSpans.done();
  observer.begin?.(phases, Number.isFinite(first) ? first : 0, lastLines.size);

  // Pass 2.
  const bound = settings.deliveryBoundMs;
  const out = noFindings();
  const tallies = noTallies();
  const endings = noEndings();
  // Each open message's operations in file order (the observer and the extras read them; the judges, grouped by type).
  const open = new OpenMessages();
  const parts: { ordinal: number; part: ShardPart }[] = [];
  const waiting: PopOp[] = [];
  let errorReachedConsumer = false;
  const erredShards = new Set<string>();
  const extrasById = new Map<string, OpExtra[]>();
  let peakOpen = 0;
  const judgeOne = messageJudge(phases, settings, out, { popsAtEnd, popsRecorded });
  const atEnd = { id: '', end: phases.end, pops: popsAtEnd };
  // Judges an open message and closes it.
  const judge = (id: string, slot: number) => {
    const m = open.grouped(slot);
    sortByReturn(m);
    tallyMessage(m, tallies);
    atEnd.id = id;
    tallyEndings(m, endings, atEnd);
    const before = out.violations.length;
    judgeOne(id, m);
    const violated = out.violations.length > before;
    if (violated || observer.message) {
      const ops = open.opsOf(slot);
      if (violated) extrasById.set(id, extrasOf(ops));
      observer.message?.(id, ops, violated);
    }
    if (bound !== undefined) {
      const part = shardPartOf(id, m, unknownPops, phases, settings);
      if (part) parts.push({ ordinal: open.ordinalOf(slot), part: { ...part, deliveries: part.deliveries.map(slimDelivery) } });
    }
    open.close(id, slot);
  };
  const onLine = (parsed: HistoryLine): void => {
    if (parsed.kind === 'op') onOp(parsed.op, parsed.inFlight);
  };
  const onOp = (op: HistoryOp, inFlight: boolean): void => {
    if (inFlight) {
      completeAtEnd(op, phases.end);
      endings.inFlight++;
    }
    tallyOp(op, tallies);
    if (op.type === 'pop') {
      observer.pop?.(op);
      if (consumerPopFailed(op)) {
        errorReachedConsumer = true;
        if (op.shard !== undefined) erredShards.add(op.shard);
      }
      if (bound !== undefined && op.outcome === 'ok' && op.via === 'schedule' && op.shard !== undefined) waiting.push(slimPop(op));
      return;
    }
    const slot = open.add(op);
    if (open.size > peakOpen) peakOpen = open.size;
    if ((isLast[n >> 3]! & (1 << (n & 7))) !== 0) judge(op.id, slot);
  };
  // A settled pop would only be tallied as nothing: skipped unless the shards' judgements or the observer read pops.
  const skipSettled = bound === undefined && observer.pop === undefined;
  n = 0;
  for await (const batch of source()) {
    if (!('bytes' in batch)) {
      for (const raw of batch) {
        n++;
        const line = trimmed(raw);
        if (line !== '') onLine(parseHistoryLine(line, file, n));
      }
      continue;
    }
    // Byte batches: a plain line is read straight from its bytes (as JSON.parse would read it), any other decoded and parsed.
    const b = batch.bytes;
    for (let from = 0; from < b.length; ) {
      const to = b.indexOf(10, from);
      n++;
      if (skipSettled && settledPops.has(n)) {
        from = to + 1;
        continue;
      }
      const json = parseOpBytes(b, from, to);
      // A plainly valid operation goes straight to the judgement; anything else through the schema (which names what is wrong).
      const plain = json === undefined ? undefined : plainOp(json);
      if (plain !== undefined) onOp(plain, false);
      else if (json !== undefined) onLine(historyLineOf(json, file, n));
      else {
        const line = decoder.decode(b.subarray(from, to)).trim();
        if (line !== '') onLine(parseHistoryLine(line, file, n));
      }
      from = to + 1;
    }
  }
  // Messages whose hash collided with a later one's.
  for (const id of open.ids()) judge(id, open.slotOfId(id)!);

  let lateness: number[] = [];
  if (bound !== undefined) {
    parts.sort((a, b) => a.ordinal - b.ordinal);
    const shards: ShardSets = new Map();
    for (const p of parts) addShardPart(shards, p.part);
    judgeStopped(phases.stopped ?? [], shards, errorReachedConsumer, { livenessStart: phases.livenessStart, recoveryBoundMs: settings.recoveryBoundMs, boundMs: bound, loopsFollowed: phases.stopped !== undefined }, waiting, erredShards, out);
    // judgeShardSets reads unknown pops only through freeIntervals (done per message above).
    lateness = judgeShardSets(shards, waiting, bound, out);
  }
  const report = reportOf(tallies, out, lateness);
  // Pass 3, only when a shard's judgement found something: the extra fields of those messages' operations.
  const needed = new Set(report.violations.map((v) => v.id).filter((id) => !extrasById.has(id)));
  if (needed.size > 0) await collectExtras(source, file, needed, extrasById);
  return {
    phases,
    settings,
    ...(faults.length > 0 ? { faults } : {}),
    ...(endings.inFlight > 0 ? { inFlight: endings.inFlight } : {}),
    report: judgeReportOf(report, endings, faults, extrasById, options),
    peak: { messagesOpen: peakOpen, shardParts: parts.length },
    start: Number.isFinite(first) ? first : 0,
  };
}
