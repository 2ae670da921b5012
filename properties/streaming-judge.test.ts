import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../src/model/checker.js';
import { HistoryFileError, parseHistoryFile, plainOp, schemaOp } from '../src/model/history-file.js';
import { historyStart, judgeHistory } from '../src/model/judge.js';
import { hashIdString, parseOpBytes, scanLineBytes, scanned, settledPopLine } from '../src/model/line-scan.js';
import { judgeStream, type LineSource } from '../src/model/stream-judge.js';
import { HISTORY_FORMAT_VERSION } from '../src/model/history.js';

/**
 * The streaming judge (two passes over the file, one message in memory at a time) against the
 * whole-history judge (checkHistory): the same report — counts, findings in the same order with the
 * same details, exposure, latency, lateness, endings, verdict — on random histories of every
 * operation type, outcome, shard and priority, with faults, extra fields, operations in flight at the
 * end, blank lines, any line order and any batch size; and the same error on a broken line.
 */
const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);

const outcome = fc.constantFrom('ok', 'ok', 'ok', 'fail', 'unknown');
const id = fc.constantFrom('m1', 'm2', 'm3', 'm4', 'ü€😀');
const proc = fc.constantFrom('c1', 'c2', 'c3');
const shard = fc.option(fc.constantFrom('a', 'b'), { nil: undefined });
const span = fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 40 }));
/** Extra fields a recorder adds (sometimes), and a call in flight at the end (sometimes). */
const extras = fc.option(fc.record({ attempt: fc.integer({ min: 1, max: 3 }), job: fc.constantFrom('send', 'bill', { nested: [1, 'x'] }) }, { requiredKeys: [] }), { nil: undefined });

/** One generated line about one of the messages `id` draws. */
const lineAbout = (id: fc.Arbitrary<string>) => fc.oneof(
  fc.record({ type: fc.constantFrom('push', 'ensure'), id, process: fc.constant('p'), at: span, outcome, delayMs: fc.constantFrom(0, 0, 50, 150), priority: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }), shard, created: fc.option(fc.boolean(), { nil: undefined }), extras, inFlight: fc.boolean() }),
  fc.record({ type: fc.constant('deliver'), id, process: proc, at: span, lease: fc.constantFrom(100, 500), via: fc.option(fc.constantFrom('schedule', 'id', 'predicate'), { nil: undefined }), shard, extras }),
  // A lease a pop kept back (leased to nobody): its pop's process and times, lease to the return + lease.
  fc.record({ type: fc.constant('kept-back'), id, process: proc, at: span, lease: fc.constantFrom(100, 500), shard, extras }),
  fc.record({ type: fc.constantFrom('ack', 'release', 'remove'), id, process: proc, at: span, outcome, extras, inFlight: fc.boolean() }),
  fc.record({ type: fc.constant('extend'), id, process: proc, at: span, outcome, until: fc.integer({ min: 0, max: 1_000 }) }),
  fc.record({ type: fc.constant('reschedule'), id, process: proc, at: span, outcome, delayMs: fc.constantFrom(0, 100) }),
  fc.record({ type: fc.constant('pop'), process: proc, at: span, outcome, via: fc.constantFrom('schedule', 'schedule', 'id', 'predicate'), shard, target: id, delivered: fc.integer({ min: 0, max: 2 }), inFlight: fc.boolean() }),
  fc.record({ type: fc.constant('fault'), phase: fc.constantFrom('start', 'end'), kind: fc.constantFrom('kill', 'partition'), target: fc.option(fc.constantFrom('n1', 'n2'), { nil: undefined }), at: fc.integer({ min: 0, max: 300 }) }),
  fc.constant({ type: 'blank' }),
);
const line = lineAbout(id);

type Gen = Record<string, unknown> & { type: string };
/** One generated record as a line of the history format. */
function toLine(g: Gen): string {
  if (g.type === 'blank') return '';
  if (g.type === 'fault') return JSON.stringify({ type: 'fault', phase: g.phase, kind: g.kind, ...(g.target !== undefined ? { target: g.target } : {}), at: g.at, detail: 'generated' });
  const [t, d] = g.at as [number, number];
  // An operation in flight at the end has no completedAt and an unknown outcome.
  const inFlight = g.inFlight === true && g.type !== 'deliver' && g.type !== 'kept-back' && (g.outcome === 'unknown' || g.type === 'pop');
  const base: Record<string, unknown> = { type: g.type, process: g.process, invokedAt: t, ...(inFlight ? {} : { completedAt: t + d }), outcome: inFlight ? 'unknown' : (g.outcome ?? 'ok') };
  if (g.type !== 'pop') base.id = g.id;
  switch (g.type) {
    case 'push':
    case 'ensure':
      Object.assign(base, { delayMs: g.delayMs }, g.priority !== undefined ? { priority: g.priority } : {}, g.shard !== undefined ? { shard: g.shard } : {}, g.type === 'ensure' && g.created !== undefined ? { created: g.created } : {});
      break;
    case 'deliver':
      Object.assign(base, { leaseUntil: t + (g.lease as number) }, g.via !== undefined ? { via: g.via } : {}, g.shard !== undefined ? { shard: g.shard } : {});
      break;
    case 'kept-back':
      Object.assign(base, { leaseUntil: t + d + (g.lease as number) }, g.shard !== undefined ? { shard: g.shard } : {});
      break;
    case 'extend':
      base.leaseUntil = g.until;
      break;
    case 'reschedule':
      base.delayMs = g.delayMs;
      break;
    case 'pop':
      Object.assign(base, { via: g.via, delivered: g.delivered }, g.shard !== undefined ? { shard: g.shard } : {}, g.via === 'id' ? { id: g.target } : {});
      break;
  }
  return JSON.stringify({ ...base, ...((g.extras as object | undefined) ?? {}) });
}

const runLine = fc.option(
  fc.record({ livenessStart: fc.constantFrom(0, 100), end: fc.constantFrom(400, 1_000, 3_000), reaperIntervalMs: fc.constant(50), recoveryBoundMs: fc.constant(100), deliveryBoundMs: fc.option(fc.constantFrom(0, 20, 60), { nil: undefined }) }, { requiredKeys: ['reaperIntervalMs', 'recoveryBoundMs'] }),
  { nil: undefined },
);

/** A line source over an array, in batches of `size` lines: strings, or (`bytes`) UTF-8 as a file reader yields them. */
const source = (lines: readonly string[], size: number, bytes = false): LineSource =>
  async function* () {
    for (let i = 0; i < lines.length; i += size) {
      const batch = lines.slice(i, i + size);
      yield bytes ? { bytes: new TextEncoder().encode(batch.map((l) => `${l}\n`).join('')), count: batch.length } : batch;
    }
  };

async function both(lines: string[], size: number) {
  const text = lines.join('\n');
  let whole: unknown;
  let streamed: unknown;
  let first = 0;
  try {
    const j = judgeHistory(text, {}, 'h.jsonl');
    const { history, ...rest } = j;
    first = historyStart(history);
    // The judge's report is checkHistory's, explained: the checker's own verdicts, unchanged.
    const { verdict: _v, endings: _e, ...checked } = j.report;
    const plain = checkHistory(history, j.phases, j.settings);
    expect({ ...checked, violations: checked.violations.map(({ faults: _f, extras: _x, ...v }) => v) }).toEqual(plain);
    whole = rest;
  } catch (err) {
    if (!(err instanceof HistoryFileError)) throw err;
    whole = err.message;
  }
  // The first pass scans byte batches without JSON.parse: both kinds of batch must judge alike.
  for (const bytes of [false, true]) {
    let one: unknown;
    try {
      const { peak: _peak, start, ...rest } = await judgeStream(source(lines, size, bytes), 'h.jsonl');
      // Where messages count t+N ms from: the first invocation, which the whole-file reader does not report.
      if (typeof whole === 'object') expect(start).toBe(first);
      one = rest;
    } catch (err) {
      if (!(err instanceof HistoryFileError)) throw err;
      one = err.message;
    }
    if (bytes) expect(one, 'bytes and strings judge alike').toEqual(streamed);
    else streamed = one;
  }
  return { whole, streamed };
}

describe('the streaming judge gives checkHistory\'s verdicts', () => {
  it('on random histories of every operation, with faults, extras, calls in flight, any order and batch size', async () => {
    await fc.assert(
      fc.asyncProperty(runLine, fc.array(line, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 7 }), fc.nat(), fc.array(fc.integer({ min: 0, max: 12_000 }), { maxLength: 2 }), fc.array(fc.nat()), async (run, gens, size, runAt, ends, escaped) => {
        const lines = gens.map((g) => toLine(g as Gen));
        // The same id written with an escape on some lines (the byte scan declines those, JSON.parse reads them): one message still.
        for (const i of escaped) if (lines.length > 0) lines[i % lines.length] = lines[i % lines.length]!.replace('"id":"m1"', '"id":"m\\u0031"').replace('"id":"ü€😀"', '"id":"\\u00fc€\\ud83d\\ude00"');
        if (run) lines.splice(runAt % (lines.length + 1), 0, JSON.stringify({ type: 'run', version: HISTORY_FORMAT_VERSION, ...run }));
        // end lines (recordHistory's), anywhere: the history ends at the latest, or its last completion
        for (const at of ends) lines.splice((runAt + at) % (lines.length + 1), 0, JSON.stringify({ type: 'end', at }));
        const { whole, streamed } = await both(lines, size);
        expect(streamed, lines.join('\n')).toEqual(whole);
      }),
      { numRuns: Math.round(600 * SCALE) },
    );
  }, 300_000);

  it('on long random histories of many messages open at once, read in batches of any size: the same findings as checkHistory', async () => {
    // Many ids at once: messages open together, judged as their last lines pass, grouped as they are read.
    const manyIds = fc.integer({ min: 0, max: 60 }).map((i) => `m${i}`);
    await fc.assert(
      fc.asyncProperty(runLine, fc.array(lineAbout(manyIds), { minLength: 50, maxLength: 300 }), fc.integer({ min: 1, max: 40 }), async (run, gens, size) => {
        const lines = gens.map((g) => toLine(g as Gen));
        if (run) lines.unshift(JSON.stringify({ type: 'run', version: HISTORY_FORMAT_VERSION, ...run }));
        const { whole, streamed } = await both(lines, size);
        expect(streamed, lines.join('\n')).toEqual(whole);
      }),
      { numRuns: Math.round(150 * SCALE) },
    );
  }, 300_000);

  it('reports the same first bad line as the whole-file reader when a line is broken', async () => {
    const corrupt = fc.constantFrom('{"type":"push"', '{"type":"ack","process":"c","id":"m1","invokedAt":1,"completedAt":2,"outcome":"maybe"}', '{"type":"run","version":99}', '{"type":"fault","phase":"end","kind":"never-started","at":1}', '{"type":"ack","id":"m1","id":"m2","process":"c","invokedAt":1,"completedAt":2,"outcome":"ok"}', '{"type":"run"}', '{"type": "push", "process": "p", "id": "m1", "invokedAt": 0, "completedAt": 1, "outcome": "ok"}', '{"id":"m2","type":"ack","id":"m1","process":"c","invokedAt":1,"completedAt":2,"outcome":"ok"}', '{"type":"ack","process":"c","id":"m1","invokedAt":1,"completedAt":null,"outcome":"unknown"}');
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 20 }), fc.array(fc.tuple(fc.nat(), corrupt), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 5 }), async (gens, bad, size) => {
        const lines = gens.map((g) => toLine(g as Gen));
        for (const [at, text] of bad) lines.splice(at % (lines.length + 1), 0, text);
        const { whole, streamed } = await both(lines, size);
        expect(streamed, lines.join('\n')).toEqual(whole);
      }),
      { numRuns: Math.round(300 * SCALE) },
    );
  }, 300_000);

  it('the plain reader of a line (no zod) accepts nothing the schema refuses and returns what the schema returns', () => {
    const wrong = fc.constantFrom<unknown>(undefined, null, -1, 0, 1.5, 100, 2 ** 60, '', 'x', 'ok', 'unknown', 'schedule', true, [], {});
    const field = fc.constantFrom('type', 'process', 'id', 'invokedAt', 'completedAt', 'outcome', 'delayMs', 'priority', 'shard', 'created', 'leaseUntil', 'via', 'delivered');
    fc.assert(
      fc.property(line, fc.array(fc.tuple(field, wrong), { maxLength: 2 }), (g, changes) => {
        const text = toLine(g as Gen);
        if (text === '' || (g as Gen).type === 'fault') return;
        const json = JSON.parse(text) as Record<string, unknown>;
        for (const [k, v] of changes) {
          if (v === undefined) delete json[k];
          else json[k] = v;
        }
        const expected = schemaOp(structuredClone(json));
        const plain = plainOp(structuredClone(json));
        if (plain !== undefined) expect(plain, JSON.stringify(json)).toEqual(expected);
      }),
      { numRuns: Math.round(3_000 * SCALE) },
    );
  });

  it('the byte readers of a line (both passes\' scans) read what JSON.parse reads, and the second pass\'s accepts nothing JSON.parse refuses', () => {
    const value = fc.oneof(fc.string({ unit: 'binary' }), fc.double(), fc.integer(), fc.constantFrom(true, false, null, 1_700_000_000_123, -0, 1e21, 0.1), fc.constant({ nested: 1 }));
    const formatKeys = ['type', 'id', 'process', 'invokedAt', 'completedAt', 'outcome', 'delayMs', 'priority', 'shard', 'leaseUntil', 'via', 'delivered', 'created'];
    // A format key cut short, run on, or with one byte changed (the readers match the format's keys in place, a few bytes at a time).
    const nearKey = fc.tuple(fc.constantFrom(...formatKeys), fc.nat(), fc.constantFrom('', 'x', 't', '"', 'A')).map(([k, at, c]) => {
      const i = at % (k.length + 1);
      return at % 3 === 0 ? k.slice(0, i) : at % 3 === 1 ? k + c : k.slice(0, i) + c + k.slice(i + 1);
    });
    const key = fc.oneof(fc.constantFrom(...formatKeys, 'type', 'id', '__proto__', 'constructor', '1', ''), nearKey, fc.string({ unit: 'binary', maxLength: 6 }));
    const edit = fc.tuple(fc.nat(), fc.constantFrom('', ' ', '"', '\\', ',', '}', '{', '0', '-', '.', 'e', '\t', '\u0001', 'é', 'tru', 'nul'), fc.integer({ min: 0, max: 2 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), fc.array(edit, { maxLength: 2 }), fc.constantFrom('', ' ', '\r'), (pairs, edits, pad) => {
        let text = pad + JSON.stringify(Object.fromEntries(pairs.filter(([k]) => k !== '__proto__'))).replace(/^\{/, pairs.some(([k]) => k === '__proto__') ? '{"__proto__":1,' : '{').replace(',}', '}') + pad;
        for (const [at, insert, cut] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + cut);
        }
        // The line, then the next one in the same batch (a reader must not read past its line's end).
        const line = new TextEncoder().encode(`${text}\n`);
        const bytes = new Uint8Array(line.length + 24);
        bytes.set(line);
        bytes.set(new TextEncoder().encode('Id":"m1","type":"pop"}\n'), line.length);
        const end = line.length - 1;
        // What the bytes say (a lone surrogate left by an edit is encoded as U+FFFD).
        const decoded = new TextDecoder().decode(bytes.subarray(0, end));
        // The same fields and values (the format's own first, then the recorder's in their order).
        const op = parseOpBytes(bytes, 0, end);
        if (op !== undefined) {
          const json = JSON.parse(decoded) as Record<string, unknown>;
          expect(op, text).toEqual(json);
          expect(Object.keys(op).sort(), text).toEqual(Object.keys(json).sort());
          expect(['run', 'fault']).not.toContain(json.type);
        }
        // The first pass's scan (lenient: the second pass validates) reads of a valid line what JSON.parse reads.
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(decoded) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        if (scanLineBytes(bytes, 0, end) && json !== undefined && typeof json === 'object' && json !== null && !Array.isArray(json)) {
          const kind = ['pop', 'run', 'fault', 'end'].includes(json.type as string) ? json.type : 'other';
          expect({ kind: scanned.kind, idHash: scanned.idHash, invokedAt: scanned.invokedAt, completedAt: scanned.completedAt, decided: scanned.decided }, text).toEqual({
            kind,
            idHash: typeof json.id === 'string' ? hashIdString(json.id) : 0,
            invokedAt: typeof json.invokedAt === 'number' ? json.invokedAt : NaN,
            completedAt: typeof json.completedAt === 'number' ? json.completedAt : NaN,
            decided: json.outcome === 'ok' || json.outcome === 'fail',
          });
        }
      }),
      { numRuns: Math.round(20_000 * SCALE) },
    );
  });

  it('the first pass settles a pop only when the second would read it plainly as a pop that returned (ok or fail), and every such pop with one type', () => {
    const wrong = fc.constantFrom<unknown>(undefined, null, -1, 0, 1.5, 1e21, 2 ** 60, '', 'x', 'ok', 'fail', 'unknown', 'schedule', 'pop', 'push', true, [], {});
    const field = fc.constantFrom('type', 'process', 'id', 'invokedAt', 'completedAt', 'outcome', 'via', 'shard', 'delivered', '__proto__', 'attempt');
    const edit = fc.tuple(fc.nat(), fc.constantFrom('', ' ', '"', '\\', ',', '}', '0', '-', 'e', '\u0001', 'é'), fc.integer({ min: 0, max: 2 }));
    const pop = line.filter((g) => (g as Gen).type === 'pop');
    fc.assert(
      fc.property(pop, fc.array(fc.tuple(field, wrong), { maxLength: 2 }), fc.array(edit, { maxLength: 1 }), fc.boolean(), (g, changes, edits, repeat) => {
        const json = JSON.parse(toLine(g as Gen)) as Record<string, unknown>;
        for (const [k, v] of changes) {
          if (v === undefined) delete json[k];
          else json[k] = v;
        }
        let text = JSON.stringify(json);
        // A repeated key: the last one wins, in both readers.
        if (repeat && changes.length > 0) text = text.replace(/^\{/, `{${JSON.stringify(changes[0]![0])}:${JSON.stringify(changes[0]![1] ?? 0)},`);
        for (const [at, insert, cut] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + cut);
        }
        const bytes = new TextEncoder().encode(`${text}\n`);
        const op = parseOpBytes(bytes, 0, bytes.length - 1);
        const plain = op === undefined ? undefined : plainOp(op);
        const expected = plain !== undefined && plain.type === 'pop' && (plain.outcome === 'ok' || plain.outcome === 'fail');
        const settled = settledPopLine(bytes, 0, bytes.length - 1);
        // Never a line the second pass would read otherwise; every such pop but one whose first type is not pop (declined early, read as before).
        if (settled) expect(expected, text).toBe(true);
        if (expected && text.split('"type"').length === 2) expect(settled, text).toBe(true);
      }),
      { numRuns: Math.round(5_000 * SCALE) },
    );
  });

  it('judges a message as soon as its last line is read: memory holds the messages open at once', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 500; i++) {
      const id = `m${i}`;
      lines.push(JSON.stringify({ type: 'push', process: 'p', id, invokedAt: i * 10, completedAt: i * 10 + 1, outcome: 'ok' }));
      lines.push(JSON.stringify({ type: 'deliver', process: 'c', id, invokedAt: i * 10 + 2, completedAt: i * 10 + 3, leaseUntil: i * 10 + 1_000 }));
      lines.push(JSON.stringify({ type: 'ack', process: 'c', id, invokedAt: i * 10 + 4, completedAt: i * 10 + 5, outcome: 'ok' }));
    }
    const j = await judgeStream(source(lines, 64));
    expect(j.peak.messagesOpen).toBe(1);
    expect(j.report.verdict).toBe('valid');
    expect(j.report.acked).toBe(500);
    // interleaved: two messages open at once
    const pair = [lines[0]!, lines[3]!, lines[1]!, lines[4]!, lines[2]!, lines[5]!];
    expect((await judgeStream(source(pair, 2))).peak.messagesOpen).toBe(2);
    // the same file parsed whole says the same
    expect(parseHistoryFile(lines.join('\n')).history.length).toBe(1_500);
  });
});
