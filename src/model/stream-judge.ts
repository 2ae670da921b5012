import { addShardPart, judgeMessage, judgeShardSets, noFindings, noTallies, popsInFlightAtEnd, reportOf, shardPartOf, tallyMessage, tallyOp, type ShardPart, type ShardSets } from './checker.js';
import { extrasOf, MAX_EXTRAS_PER_MESSAGE, noEndings, tallyEndings, type OpExtra } from './endings.js';
import { completeAtEnd, extraFields, FaultSpans, HistoryFileError, parseHistoryLine, runOf, type RunLine } from './history-file.js';
import type { DeliverOp, HistoryOp, PopOp } from './history.js';
import { judgeReportOf, type JudgeOptions, type JudgeOverrides, type Judgement } from './judge.js';
import { groupById } from './message-ops.js';

/**
 * A history file read as a stream: each call starts reading it again from the top and yields its
 * lines in batches (without their line breaks; empty lines included, so that line numbers hold).
 * The CLI reads a file in chunks; a test can yield from an array.
 */
export type LineSource = () => AsyncIterable<readonly string[]>;

/** What the streaming judge returns: a Judgement without the history itself (it was never held). */
export type StreamJudgement = Omit<Judgement, 'history'> & {
  /** Messages buffered at once at most, and shard parts kept for the end (what memory is bounded by). */
  readonly peak: { readonly messagesOpen: number; readonly shardParts: number };
  /** The first invocation in the history: where messages count their `t+N ms` from. */
  readonly start: number;
};

/**
 * Open addressing over typed arrays: a 32-bit hash of each message id → the last line it appears on.
 * Ids whose hashes collide share an entry, whose last line is then the later of theirs: a message is
 * never judged before its last line; one that collided may be judged later (at the end), never wrongly.
 */
class LastLines {
  private keys = new Int32Array(1 << 16);
  private lines = new Int32Array(1 << 16);
  private size = 0;

  set(hash: number, line: number): void {
    let mask = this.keys.length - 1;
    let i = hash & mask;
    while (this.keys[i] !== 0 && this.keys[i] !== hash) i = (i + 1) & mask;
    if (this.keys[i] === 0) {
      if (++this.size * 2 > this.keys.length) {
        this.grow();
        mask = this.keys.length - 1;
        i = hash & mask;
        while (this.keys[i] !== 0) i = (i + 1) & mask;
      }
      this.keys[i] = hash;
    }
    this.lines[i] = line;
  }

  private grow(): void {
    const keys = this.keys;
    const lines = this.lines;
    this.keys = new Int32Array(keys.length * 2);
    this.lines = new Int32Array(keys.length * 2);
    const mask = this.keys.length - 1;
    for (let j = 0; j < keys.length; j++) {
      if (keys[j] === 0) continue;
      let i = keys[j]! & mask;
      while (this.keys[i] !== 0) i = (i + 1) & mask;
      this.keys[i] = keys[j]!;
      this.lines[i] = lines[j]!;
    }
  }

  /** One bit per line: set on the last line of each hash's ids. */
  bits(lineCount: number): Uint8Array {
    const bits = new Uint8Array((lineCount >> 3) + 1);
    for (let j = 0; j < this.keys.length; j++) if (this.keys[j] !== 0) bits[this.lines[j]! >> 3]! |= 1 << (this.lines[j]! & 7);
    return bits;
  }
}

/** FNV-1a over the id's UTF-16 code units, never 0 (0 marks an empty slot). */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h === 0 ? 1 : h;
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

/** The extra fields of the operations of the `needed` messages, read from the stream again. */
async function collectExtras(source: LineSource, file: string, needed: ReadonlySet<string>, extrasById: Map<string, OpExtra[]>): Promise<void> {
  const opsOf = new Map<string, HistoryOp[]>();
  let n = 0;
  for await (const batch of source()) {
    for (const raw of batch) {
      n++;
      const line = raw.trim();
      if (line === '') continue;
      const s = scanLine(line);
      if (s && (s.type === 'pop' || s.id === undefined || !needed.has(s.id))) continue;
      const parsed = parseHistoryLine(line, file, n);
      if (parsed.kind !== 'op' || parsed.op.type === 'pop' || !needed.has(parsed.op.id)) continue;
      let list = opsOf.get(parsed.op.id);
      if (!list) opsOf.set(parsed.op.id, (list = []));
      if (list.length < MAX_EXTRAS_PER_MESSAGE && extraFields(parsed.op)) list.push(parsed.op);
    }
  }
  for (const id of needed) extrasById.set(id, extrasOf(opsOf.get(id) ?? []));
}

/** Reads every line up to (not including) `upTo` as parseHistoryFile would, to report the first bad one. */
async function firstError(source: LineSource, file: string, upTo: number): Promise<void> {
  let n = 0;
  let run = false;
  const faults = new FaultSpans();
  for await (const batch of source()) {
    for (const raw of batch) {
      if (++n >= upTo) return;
      const line = raw.trim();
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
export async function judgeStream(source: LineSource, file = '<history>', overrides: JudgeOverrides = {}, options: JudgeOptions = {}): Promise<StreamJudgement> {
  // Pass 1.
  const lastLines = new LastLines();
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
  try {
    for await (const batch of source()) {
      for (const raw of batch) {
        n++;
        const line = raw.trim();
        if (line === '') continue;
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
            continue;
          }
          if (parsed.kind === 'fault') {
            faultSpans.add(parsed.fault, file, n);
            continue;
          }
          if (parsed.kind === 'end') {
            endLine = Math.max(endLine, parsed.at);
            continue;
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
        if (type !== 'pop' && id !== undefined) lastLines.set(hashId(id), n);
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

  // Pass 2.
  const bound = settings.deliveryBoundMs;
  const out = noFindings();
  const tallies = noTallies();
  const endings = noEndings();
  const open = new Map<string, { ordinal: number; ops: HistoryOp[] }>();
  const parts: { ordinal: number; part: ShardPart }[] = [];
  const waiting: PopOp[] = [];
  const extrasById = new Map<string, OpExtra[]>();
  let ordinal = 0;
  let peakOpen = 0;
  const judge = (id: string, ops: HistoryOp[], at: number) => {
    const m = groupById(ops).byId.get(id)!;
    tallyMessage(m, tallies);
    tallyEndings(m, endings, { id, end: phases.end, pops: popsAtEnd });
    const before = out.violations.length;
    judgeMessage(id, m, phases, settings, out, { popsAtEnd, popsRecorded });
    if (out.violations.length > before) extrasById.set(id, extrasOf(ops));
    if (bound === undefined) return;
    const part = shardPartOf(id, m, unknownPops, phases, settings);
    if (part) parts.push({ ordinal: at, part: { ...part, deliveries: part.deliveries.map(slimDelivery) } });
  };
  n = 0;
  for await (const batch of source()) {
    for (const raw of batch) {
      n++;
      const line = raw.trim();
      if (line === '') continue;
      const parsed = parseHistoryLine(line, file, n);
      if (parsed.kind !== 'op') continue;
      const op = parsed.op;
      if (parsed.inFlight) {
        completeAtEnd(op, phases.end);
        endings.inFlight++;
      }
      tallyOp(op, tallies);
      if (op.type === 'pop') {
        if (bound !== undefined && op.outcome === 'ok' && op.via === 'schedule' && op.shard !== undefined) waiting.push(slimPop(op));
        continue;
      }
      let m = open.get(op.id);
      if (!m) {
        open.set(op.id, (m = { ordinal: ordinal++, ops: [] }));
        if (open.size > peakOpen) peakOpen = open.size;
      }
      m.ops.push(op);
      if ((isLast[n >> 3]! & (1 << (n & 7))) !== 0) {
        open.delete(op.id);
        judge(op.id, m.ops, m.ordinal);
      }
    }
  }
  // Messages whose hash collided with a later one's.
  for (const [id, m] of open) judge(id, m.ops, m.ordinal);
  open.clear();

  let lateness: number[] = [];
  if (bound !== undefined) {
    parts.sort((a, b) => a.ordinal - b.ordinal);
    const shards: ShardSets = new Map();
    for (const p of parts) addShardPart(shards, p.part);
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
