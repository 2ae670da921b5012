import { InvalidMessageError } from './errors.js';

/** A message as stored and delivered (Dyno's Message). */
export interface Message {
  readonly id: string;
  readonly payload: string;
  /** Delay in ms before the message may be delivered, as given at push. */
  readonly timeout: number;
  /** 0 (most urgent) to 99. */
  readonly priority: number;
  /** The shard it was pushed to. */
  readonly shard: string;
}

/** What a producer pushes. */
export interface MessageInput {
  readonly id: string;
  readonly payload: string;
  readonly timeout?: number;
  readonly priority?: number;
}

/** A delivered message with its lease. Atomic mode gives a token; legacy mode has none. */
export interface PoppedMessage extends Message {
  readonly token?: string;
  /** When the lease ends, on the clock that set it (client or server time). */
  readonly leaseDeadline: number;
}

export const MAX_ID_LENGTH = 256;
/** Ids become zset members, hash fields and parts of log lines: keep them to a safe alphabet. */
export const ID_PATTERN = /^[A-Za-z0-9_\-.:@/+=~]+$/;
export const MAX_DELAY_MS = 2 ** 40;
export const DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;

export interface MessageLimits {
  readonly maxPayloadBytes: number;
}

export function validateId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string') throw new InvalidMessageError(field, 'must be a string');
  if (id.length === 0) throw new InvalidMessageError(field, 'must not be empty');
  if (id.length > MAX_ID_LENGTH) throw new InvalidMessageError(field, `must be at most ${MAX_ID_LENGTH} characters`);
  if (!ID_PATTERN.test(id)) {
    throw new InvalidMessageError(field, `may only contain letters, digits and _-.:@/+=~ (got ${JSON.stringify(id)})`);
  }
  return id;
}

export function validateDelay(value: unknown, field: string, messageId?: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidMessageError(field, 'must be a number of milliseconds', messageId);
  }
  if (!Number.isFinite(value)) throw new InvalidMessageError(field, 'must be finite', messageId);
  if (value < 0) throw new InvalidMessageError(field, 'must not be negative', messageId);
  if (!Number.isInteger(value)) throw new InvalidMessageError(field, 'must be a whole number of milliseconds', messageId);
  if (value > MAX_DELAY_MS) throw new InvalidMessageError(field, `must be at most ${MAX_DELAY_MS} ms`, messageId);
  return value;
}

export function validatePriority(value: unknown, messageId?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 99) {
    throw new InvalidMessageError('priority', 'must be an integer from 0 to 99', messageId);
  }
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The index of the first lone UTF-16 surrogate in `s` (no UTF-8 form; Redis's cjson refuses its escape), or -1. */
export function loneSurrogateAt(s: string): number {
  return s.search(LONE_SURROGATE);
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Checks a pushed message completely, before anything is written. */
export function validateMessageInput(input: unknown, limits: MessageLimits): Required<MessageInput> {
  if (typeof input !== 'object' || input === null) throw new InvalidMessageError('message', 'must be an object');
  const m = input as Record<string, unknown>;
  const id = validateId(m.id);
  if (typeof m.payload !== 'string') throw new InvalidMessageError('payload', 'must be a string', id);
  const surrogate = loneSurrogateAt(m.payload);
  if (surrogate >= 0) {
    throw new InvalidMessageError(
      'payload',
      `is not well-formed Unicode: a lone UTF-16 surrogate at index ${surrogate} has no UTF-8 form and cannot round-trip through Redis's Lua/cjson`,
      id,
    );
  }
  const bytes = utf8Length(m.payload);
  if (bytes > limits.maxPayloadBytes) {
    throw new InvalidMessageError('payload', `is ${bytes} bytes, over the limit of ${limits.maxPayloadBytes}`, id);
  }
  const timeout = validateDelay(m.timeout ?? 0, 'timeout', id);
  const priority = validatePriority(m.priority ?? 0, id);
  return { id, payload: m.payload, timeout, priority };
}
