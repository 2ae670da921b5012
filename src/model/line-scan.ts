/**
 * What the streaming judge's first pass reads of a history line, straight from its UTF-8 bytes: its
 * type, id and times — no decoding, no JSON.parse, no object (a history has millions of lines). Only
 * the plain case: one flat JSON object whose strings have no escapes. Anything else (an escape, a
 * nested value, a malformed line) is declined and the caller parses the line properly; the second
 * pass validates every line, so the scan never has to.
 */
import { DELIVERY_VIAS } from './history.js';

/** The scanned fields of the last line `scanLineBytes` accepted (module scratch: one scan allocates nothing). */
export const scanned = {
  /** 'run', 'fault', 'end', 'pop' or 'other'. */
  kind: 'other' as 'run' | 'fault' | 'end' | 'pop' | 'other',
  /** hashIdBytes of the id; 0 when the line has no string id. */
  idHash: 0,
  invokedAt: NaN,
  completedAt: NaN,
  /** Whether the outcome is ok or fail (what a pop needs to be skipped by the first pass). */
  decided: false,
};

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over an id's UTF-8 bytes, never 0 (0 marks an empty slot). */
function hashIdBytes(b: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
  return h === 0 ? 1 : h;
}

/** The same hash of an id held as a string: over its UTF-8 encoding (a lone surrogate as U+FFFD, as encoders write it). */
export function hashIdString(id: string): number {
  let h = FNV_OFFSET;
  const add = (byte: number) => (h = Math.imul(h ^ byte, FNV_PRIME));
  for (let i = 0; i < id.length; i++) {
    let c = id.charCodeAt(i);
    if (c < 0x80) add(c);
    else if (c < 0x800) {
      add(0xc0 | (c >> 6));
      add(0x80 | (c & 63));
    } else {
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < id.length) {
        const d = id.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          add(0xf0 | (c >> 18));
          add(0x80 | ((c >> 12) & 63));
          add(0x80 | ((c >> 6) & 63));
          add(0x80 | (c & 63));
          continue;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      add(0xe0 | (c >> 12));
      add(0x80 | ((c >> 6) & 63));
      add(0x80 | (c & 63));
    }
  }
  return h === 0 ? 1 : h;
}

const QUOTE = 34;
const BACKSLASH = 92;

const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 10;

/** Whether b[from, to) holds exactly the ASCII text `word`. */
function equals(b: Uint8Array, from: number, to: number, word: string): boolean {
  if (to - from !== word.length) return false;
  for (let i = 0; i < word.length; i++) if (b[from + i] !== word.charCodeAt(i)) return false;
  return true;
}

/** A JSON number's text as a number (digits alone without a parse; anything else through Number). */
function numberAt(b: Uint8Array, from: number, to: number): number {
  let v = 0;
  let i = from;
  const negative = b[i] === 45;
  if (negative) i++;
  if (to - i > 0 && to - i <= 15) {
    for (; i < to; i++) {
      const d = b[i]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === to) return negative ? -v : v;
  }
  let text = '';
  for (let j = from; j < to; j++) text += String.fromCharCode(b[j]!);
  return Number(text);
}

// The format's keys (history-file.ts), numbered for keyAt; KEY_OTHER: any other key.
const KEY_OTHER = 0;
const KEY_TYPE = 1;
const KEY_PROCESS = 2;
const KEY_ID = 3;
const KEY_INVOKED_AT = 4;
const KEY_COMPLETED_AT = 5;
const KEY_OUTCOME = 6;
const KEY_DELAY_MS = 7;
const KEY_PRIORITY = 8;
const KEY_SHARD = 9;
const KEY_LEASE_UNTIL = 10;
const KEY_VIA = 11;
const KEY_DELIVERED = 12;
const KEY_CREATED = 13;
/** Each key's text, by its number above. */
const KEY_TEXT = ['', 'type', 'process', 'id', 'invokedAt', 'completedAt', 'outcome', 'delayMs', 'priority', 'shard', 'leaseUntil', 'via', 'delivered', 'created'];
const KEY_LENGTH = Int32Array.from(KEY_TEXT, (k) => k.length);

/** Four bytes of `text` from `at`, as one little-endian 32-bit integer (as DataView.getInt32 reads them). */
const wordOf = (text: string, at: number): number => text.charCodeAt(at) | (text.charCodeAt(at + 1) << 8) | (text.charCodeAt(at + 2) << 16) | (text.charCodeAt(at + 3) << 24);
/** Per key of four bytes or more: its first four bytes, bytes 4–7 (or 0), its last four (overlapping the others: together every byte). Integers, compared as integers. */
const KEY_FIRST = Int32Array.from(KEY_TEXT, (k) => (k.length >= 4 ? wordOf(k, 0) : 0));
const KEY_MIDDLE = Int32Array.from(KEY_TEXT, (k) => (k.length > 8 ? wordOf(k, 4) : 0));
const KEY_LAST = Int32Array.from(KEY_TEXT, (k) => (k.length >= 4 ? wordOf(k, k.length - 4) : 0));

/** A view of the last batch keyAt read, for its four-byte reads. */
let viewed: Uint8Array | undefined;
let view: DataView = new DataView(new ArrayBuffer(0));

/** Whether the key `key` (four bytes or more) starts at b[k] and its closing quote follows it, before `to`. */
function isKeyAt(b: Uint8Array, k: number, to: number, key: number): boolean {
  const n = KEY_LENGTH[key]!;
  return k + n < to && b[k + n] === QUOTE && view.getInt32(k, true) === KEY_FIRST[key] && view.getInt32(k + n - 4, true) === KEY_LAST[key] && (n <= 8 || view.getInt32(k + 4, true) === KEY_MIDDLE[key]);
}

/** Per first byte, the format's keys of four bytes or more that start with it (two at most): small enough for keyAt to be inlined. */
const KEY_STARTING = new Uint8Array(256);
const KEY_STARTING_TOO = new Uint8Array(256);
KEY_TEXT.forEach((text, key) => {
  if (text.length < 4) return;
  const c = text.charCodeAt(0);
  if (KEY_STARTING[c] === KEY_OTHER) KEY_STARTING[c] = key;
  else if (KEY_STARTING_TOO[c] === KEY_OTHER) KEY_STARTING_TOO[c] = key;
  else throw new Error(`three keys start with ${text[0]}: keyAt reads two`);
});

/**
 * Which of the format's keys starts at b[k] (just after its opening quote) and ends with its closing
 * quote, read in place — a few compares of four bytes, no scan to the quote first; KEY_OTHER for any
 * other key (the caller scans those; one of these written with an escape is one of those, and the
 * callers decline an escape).
 */
function keyAt(b: Uint8Array, k: number, to: number): number {
  if (b !== viewed) {
    viewed = b;
    view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  const c = b[k]!;
  // The two short keys, byte by byte.
  if (c === 105 && k + 2 < to && b[k + 1] === 100 && b[k + 2] === QUOTE) return KEY_ID;
  if (c === 118 && k + 3 < to && b[k + 1] === 105 && b[k + 2] === 97 && b[k + 3] === QUOTE) return KEY_VIA;
  const first = KEY_STARTING[c]!;
  if (first === KEY_OTHER) return KEY_OTHER;
  if (isKeyAt(b, k, to, first)) return first;
  const second = KEY_STARTING_TOO[c]!;
  return second !== KEY_OTHER && isKeyAt(b, k, to, second) ? second : KEY_OTHER;
}

/** The number of the key keyEnd last read (KEY_OTHER: not one of the format's). */
let lastKey = KEY_OTHER;

/**
 * The index of the closing quote of the key that starts at b[k] (just after its opening quote), its
 * number in lastKey: one of the format's keys matched in place, any other scanned to its quote; -1
 * when the key has an escape or a control character, or does not end on the line. The key reader of
 * every scan.
 */
function keyEnd(b: Uint8Array, k: number, to: number): number {
  const key = keyAt(b, k, to);
  lastKey = key;
  if (key !== KEY_OTHER) return k + KEY_LENGTH[key]!;
  for (let i = k; i < to; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 32) return -1;
  }
  return -1;
}

/**
 * Scans the line b[from, to) into `scanned`; false when it is not a plain line (then nothing is
 * promised about `scanned`). Repeated keys: the last wins, as in JSON.parse.
 */
export function scanLineBytes(b: Uint8Array, from: number, to: number): boolean {
  let i = from;
  while (i < to && isSpace(b[i]!)) i++;
  if (b[i] !== 123) return false;
  i++;
  scanned.kind = 'other';
  scanned.idHash = 0;
  scanned.invokedAt = NaN;
  scanned.completedAt = NaN;
  scanned.decided = false;
  let typeSeen = false;
  for (;;) {
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] === 125 && !typeSeen) return false;
    if (b[i] !== QUOTE) return false;
    i = keyEnd(b, i + 1, to);
    if (i < 0) return false;
    const key = lastKey;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] !== 58) return false;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    const c = b[i];
    const valueFrom = i;
    let isString = false;
    if (c === QUOTE) {
      isString = true;
      i++;
      while (i < to && b[i] !== QUOTE) if (b[i++] === BACKSLASH) return false;
      if (i >= to) return false;
      i++;
    } else if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) {
      while (i < to && ((b[i]! >= 48 && b[i]! <= 57) || b[i] === 46 || b[i] === 101 || b[i] === 69 || b[i] === 43 || b[i] === 45)) i++;
    } else if (c === 116 || c === 102 || c === 110) {
      while (i < to && b[i]! >= 97 && b[i]! <= 122) i++;
      if (!equals(b, valueFrom, i, 'true') && !equals(b, valueFrom, i, 'false') && !equals(b, valueFrom, i, 'null')) return false;
    } else return false;
    const valueTo = i;
    switch (key) {
      case KEY_ID:
        scanned.idHash = isString ? hashIdBytes(b, valueFrom + 1, valueTo - 1) : 0;
        break;
      case KEY_TYPE:
        if (!isString) return false;
        typeSeen = true;
        scanned.kind = equals(b, valueFrom + 1, valueTo - 1, 'pop') ? 'pop' : equals(b, valueFrom + 1, valueTo - 1, 'run') ? 'run' : equals(b, valueFrom + 1, valueTo - 1, 'fault') ? 'fault' : equals(b, valueFrom + 1, valueTo - 1, 'end') ? 'end' : 'other';
        break;
      case KEY_OUTCOME:
        scanned.decided = isString && (equals(b, valueFrom + 1, valueTo - 1, 'ok') || equals(b, valueFrom + 1, valueTo - 1, 'fail'));
        break;
      case KEY_INVOKED_AT:
        scanned.invokedAt = c === QUOTE || c! > 57 ? NaN : numberAt(b, valueFrom, valueTo);
        break;
      case KEY_COMPLETED_AT:
        scanned.completedAt = c === QUOTE || c! > 57 ? NaN : numberAt(b, valueFrom, valueTo);
        break;
    }
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] === 44) {
      i++;
      continue;
    }
    if (b[i] !== 125) return false;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    return i === to && typeSeen;
  }
}

/** Short ASCII strings seen before (processes, shards, types, outcomes repeat on every line): made once. */
const internedText: (string | undefined)[] = new Array<string | undefined>(4096);
const utf8 = new TextDecoder();

/** b[from, to) as a string; `ascii` when every byte is below 0x80. */
function textAt(b: Uint8Array, from: number, to: number, ascii: boolean): string {
  if (!ascii) return utf8.decode(b.subarray(from, to));
  const length = to - from;
  if (length <= 24) {
    // The slot: from the length, the first byte and the last four (ids counting up differ at their end); a collision only costs a string.
    let h = length * 257 + b[from]!;
    for (let i = Math.max(from + 1, to - 4); i < to; i++) h = h * 31 + b[i]!;
    const slot = h & 4095;
    const known = internedText[slot];
    if (known !== undefined && known.length === length) {
      let same = true;
      for (let i = 0; i < length; i++)
        if (known.charCodeAt(i) !== b[from + i]) {
          same = false;
          break;
        }
      if (same) return known;
    }
    let s = '';
    for (let i = from; i < to; i++) s += String.fromCharCode(b[i]!);
    internedText[slot] = s;
    return s;
  }
  return utf8.decode(b.subarray(from, to));
}

/** A key of the recorder's own (the same few on every line): made once, as textAt makes values. */
function keyText(b: Uint8Array, from: number, to: number): string {
  let ascii = true;
  for (let i = from; i < to; i++) if (b[i]! >= 128) ascii = false;
  return textAt(b, from, to, ascii);
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57;

/** The value of the number numberEnd last read (in a typed array: a double kept in a module variable is a new heap number at every write). */
const lastNumber = new Float64Array(1);

/**
 * The end of the JSON number starting at `i` (its grammar exactly), or -1; its value in lastNumber
 * (an integer of up to 15 digits read as it is scanned, anything else through numberAt). The common
 * case here, small enough for V8 to inline into the readers: a positive integer of up to 15 digits
 * without a leading zero; anything else in otherNumberEnd.
 */
function numberEnd(b: Uint8Array, i: number, to: number): number {
  const from = i;
  let c = b[i]!;
  if (c < 49 || c > 57) return otherNumberEnd(b, from, to);
  let v = 0;
  for (; i < to && c >= 48 && c <= 57; c = b[++i]!) v = v * 10 + (c - 48);
  if (i - from > 15 || (i < to && (c === 46 || c === 101 || c === 69))) return otherNumberEnd(b, from, to);
  lastNumber[0] = v;
  return i;
}

/** numberEnd for any number: a sign, a leading zero, a fraction, an exponent, more than 15 digits. */
function otherNumberEnd(b: Uint8Array, i: number, to: number): number {
  const from = i;
  const negative = b[i] === 45;
  if (negative) i++;
  let v = 0;
  let digits = 0;
  if (b[i] === 48) {
    i++;
    digits = 1;
  } else if (isDigit(b[i]) && i < to)
    while (i < to && isDigit(b[i])) {
      v = v * 10 + (b[i]! - 48);
      digits++;
      i++;
    }
  else return -1;
  let integer = true;
  if (b[i] === 46) {
    integer = false;
    i++;
    if (!isDigit(b[i]) || i >= to) return -1;
    while (i < to && isDigit(b[i])) i++;
  }
  if (b[i] === 101 || b[i] === 69) {
    integer = false;
    i++;
    if (b[i] === 43 || b[i] === 45) i++;
    if (!isDigit(b[i]) || i >= to) return -1;
    while (i < to && isDigit(b[i])) i++;
  }
  lastNumber[0] = integer && digits <= 15 ? (negative ? -v : v) : numberAt(b, from, i);
  return i;
}

/** A field the line did not have (JSON's null is a value of its own). */
const ABSENT = undefined;

/**
 * An operation's fields, each only when the line had it, in one order. A constructor, not a literal
 * grown field by field: V8 sizes the objects of one constructor for all their fields at once (and for
 * the defaults plainOp adds), where a growing literal reallocates its fields as it grows — most of the
 * judge's garbage. Its prototype is Object's, as JSON.parse's objects' is.
 */
function OpObject(this: Record<string, unknown>, type: unknown, process: unknown, id: unknown, invokedAt: unknown, completedAt: unknown, outcome: unknown, delayMs: unknown, priority: unknown, shard: unknown, leaseUntil: unknown, via: unknown, delivered: unknown, created: unknown): void {
  this.type = type;
  if (process !== ABSENT) this.process = process;
  if (id !== ABSENT) this.id = id;
  if (invokedAt !== ABSENT) this.invokedAt = invokedAt;
  if (completedAt !== ABSENT) this.completedAt = completedAt;
  if (outcome !== ABSENT) this.outcome = outcome;
  if (delayMs !== ABSENT) this.delayMs = delayMs;
  if (priority !== ABSENT) this.priority = priority;
  if (shard !== ABSENT) this.shard = shard;
  if (leaseUntil !== ABSENT) this.leaseUntil = leaseUntil;
  if (via !== ABSENT) this.via = via;
  if (delivered !== ABSENT) this.delivered = delivered;
  if (created !== ABSENT) this.created = created;
}
OpObject.prototype = Object.prototype;

/** The recorder's own fields of the line parseOpBytes reads (one array for every line: most lines have one such field or none). */
const extraFields: unknown[] = [];

function addExtra(count: number, keyFrom: number, keyTo: number, value: unknown): number {
  extraFields[count] = keyFrom;
  extraFields[count + 1] = keyTo;
  extraFields[count + 2] = value;
  return count + 3;
}

/**
 * An operation line whose keys are all the format's own, read straight into an object of a fixed
 * shape (no JSON.parse, no generic object): what JSON.parse gives, but for the order of its keys, which
 * nothing reads. Undefined for anything else — a run or fault line, a field of the recorder's own, a
 * string with an escape, a nested value, bad JSON: the caller then parses the line in full.
 */
export function parseOpBytes(b: Uint8Array, from: number, to: number): Record<string, unknown> | undefined {
  let type: unknown = ABSENT;
  let process: unknown = ABSENT;
  let id: unknown = ABSENT;
  let invokedAt: unknown = ABSENT;
  let completedAt: unknown = ABSENT;
  let outcome: unknown = ABSENT;
  let delayMs: unknown = ABSENT;
  let priority: unknown = ABSENT;
  let shard: unknown = ABSENT;
  let leaseUntil: unknown = ABSENT;
  let via: unknown = ABSENT;
  let delivered: unknown = ABSENT;
  let created: unknown = ABSENT;
  // The recorder's own fields, in their order: key start, key end, value, in a scratch array reused line after line.
  let extras = 0;
  let i = from;
  while (i < to && isSpace(b[i]!)) i++;
  if (b[i] !== 123) return undefined;
  i++;
  while (i < to && isSpace(b[i]!)) i++;
  if (b[i] === 125) return undefined;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyFrom = ++i;
    i = keyEnd(b, i, to);
    if (i < 0) return undefined;
    const key = lastKey;
    const keyTo = i++;
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] !== 58) return undefined;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    const c = b[i];
    let value: unknown;
    if (c === QUOTE) {
      const valueFrom = ++i;
      let ascii = true;
      for (; i < to; i++) {
        const d = b[i]!;
        if (d === QUOTE) break;
        // One test for the rare bytes (a control character, a backslash, a byte of a multi-byte character).
        if (d < 32 || d === BACKSLASH || d >= 128) {
          if (d < 128) return undefined;
          ascii = false;
        }
      }
      if (i >= to) return undefined;
      value = textAt(b, valueFrom, i, ascii);
      i++;
    } else if (c === 45 || isDigit(c)) {
      const end = numberEnd(b, i, to);
      if (end < 0) return undefined;
      value = lastNumber[0]!;
      i = end;
    } else if (c === 116 && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) {
      value = true;
      i += 4;
    } else if (c === 102 && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) {
      value = false;
      i += 5;
    } else if (c === 110 && b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108) {
      value = null;
      i += 4;
    } else return undefined;
    if (i > to) return undefined;
    switch (key) {
      case KEY_TYPE:
        type = value;
        break;
      case KEY_PROCESS:
        process = value;
        break;
      case KEY_ID:
        id = value;
        break;
      case KEY_INVOKED_AT:
        invokedAt = value;
        break;
      case KEY_COMPLETED_AT:
        completedAt = value;
        break;
      case KEY_OUTCOME:
        outcome = value;
        break;
      case KEY_DELAY_MS:
        delayMs = value;
        break;
      case KEY_PRIORITY:
        priority = value;
        break;
      case KEY_SHARD:
        shard = value;
        break;
      case KEY_LEASE_UNTIL:
        leaseUntil = value;
        break;
      case KEY_VIA:
        via = value;
        break;
      case KEY_DELIVERED:
        delivered = value;
        break;
      case KEY_CREATED:
        created = value;
        break;
      default:
        extras = addExtra(extras, keyFrom, keyTo, value);
    }
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] === 44) {
      i++;
      while (i < to && isSpace(b[i]!)) i++;
      continue;
    }
    if (b[i] !== 125) return undefined;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    if (i !== to || type === ABSENT || type === 'run' || type === 'fault' || type === 'end') return undefined;
    break;
  }
  // The fields in one order, each only when the line had it (absent stays absent, null stays null), then the recorder's own.
  const o = new (OpObject as unknown as new (...fields: unknown[]) => Record<string, unknown>)(type, process, id, invokedAt, completedAt, outcome, delayMs, priority, shard, leaseUntil, via, delivered, created);
  for (let k = 0; k < extras; k += 3) {
    const key = keyText(b, extraFields[k] as number, extraFields[k + 1] as number);
    const value = extraFields[k + 2];
    extraFields[k + 2] = undefined;
    // A key the format knows was written once above; JSON.parse keeps the last value of a repeated key, as this does.
    if (key === '__proto__') return undefined;
    o[key] = value;
  }
  return o;
}

/** Whether b[from, to) names one of the ways of popping. */
function isViaText(b: Uint8Array, from: number, to: number): boolean {
  for (const via of DELIVERY_VIAS) if (equals(b, from, to, via)) return true;
  return false;
}

/**
 * Whether the line b[from, to) is a pop that returned (ok or fail) and that the second pass would read
 * through its plain path (parseOpBytes, then plainOp) without a word: strict JSON, no escape, and every
 * field plainOp checks plainly valid. Such a pop changes nothing in a judgement without a delivery bound
 * (no tally, no finding): the first pass settles it, and the second need not build it. Allocates nothing;
 * true with its times in `scanned` (as scanLineBytes leaves them); false for anything else, at once for
 * a line whose first type is not pop (the caller then scans or parses the line as before).
 */
export function settledPopLine(b: Uint8Array, from: number, to: number): boolean {
  let isPop = false;
  let processOk = false;
  let invokedAt = NaN;
  let completedAt = NaN;
  let decided = false;
  // Optional fields: valid until a value says otherwise (the last of a repeated key wins, as in JSON.parse).
  let viaOk = true;
  let shardOk = true;
  let idOk = true;
  let deliveredOk = true;
  let i = from;
  while (i < to && isSpace(b[i]!)) i++;
  if (b[i] !== 123) return false;
  i++;
  while (i < to && isSpace(b[i]!)) i++;
  for (;;) {
    if (b[i] !== QUOTE) return false;
    const keyFrom = ++i;
    i = keyEnd(b, i, to);
    if (i < 0) return false;
    const key = lastKey;
    const keyTo = i++;
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] !== 58) return false;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    const c = b[i];
    const valueFrom = i;
    let isString = false;
    let isNumber = false;
    if (c === QUOTE) {
      isString = true;
      for (i++; i < to; i++) {
        const d = b[i]!;
        if (d === QUOTE) break;
        if (d === BACKSLASH || d < 32) return false;
      }
      if (i >= to) return false;
      i++;
    } else if (c === 45 || isDigit(c)) {
      const end = numberEnd(b, i, to);
      if (end < 0) return false;
      isNumber = true;
      i = end;
    } else if (c === 116 && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) i += 4;
    else if (c === 102 && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) i += 5;
    else if (c === 110 && b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108) i += 4;
    else return false;
    if (i > to) return false;
    // A string's text without its quotes.
    const textFrom = valueFrom + 1;
    const textTo = i - 1;
    switch (key) {
      case KEY_ID:
        idOk = isString && textTo > textFrom;
        break;
      case KEY_VIA:
        viaOk = isString && isViaText(b, textFrom, textTo);
        break;
      case KEY_TYPE:
        isPop = isString && equals(b, textFrom, textTo, 'pop');
        // Not a pop (the type comes first on most lines): declined at once, for the caller's other scan.
        if (!isPop) return false;
        break;
      case KEY_SHARD:
        shardOk = isString && textTo > textFrom;
        break;
      case KEY_OUTCOME:
        decided = isString && (equals(b, textFrom, textTo, 'ok') || equals(b, textFrom, textTo, 'fail'));
        break;
      case KEY_PROCESS:
        processOk = isString && textTo > textFrom;
        break;
      case KEY_INVOKED_AT:
        invokedAt = isNumber ? lastNumber[0]! : NaN;
        break;
      case KEY_DELIVERED: {
        const v = isNumber ? lastNumber[0]! : NaN;
        deliveredOk = Number.isSafeInteger(v) && v >= 0;
        break;
      }
      case KEY_COMPLETED_AT:
        completedAt = isNumber ? lastNumber[0]! : NaN;
        break;
      case KEY_OTHER:
        // A key parseOpBytes declines: the second pass would not read the line plainly.
        if (equals(b, keyFrom, keyTo, '__proto__')) return false;
        break;
    }
    while (i < to && isSpace(b[i]!)) i++;
    if (b[i] === 44) {
      i++;
      while (i < to && isSpace(b[i]!)) i++;
      continue;
    }
    if (b[i] !== 125) return false;
    i++;
    while (i < to && isSpace(b[i]!)) i++;
    if (i !== to) return false;
    break;
  }
  if (!(isPop && processOk && decided && viaOk && shardOk && idOk && deliveredOk && Number.isFinite(invokedAt) && Number.isFinite(completedAt) && completedAt >= invokedAt)) return false;
  scanned.kind = 'pop';
  scanned.idHash = 0;
  scanned.invokedAt = invokedAt;
  scanned.completedAt = completedAt;
  scanned.decided = true;
  return true;
}
