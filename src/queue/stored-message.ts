import type { Message } from './message.js';

/**
 * The stored form of a message (the value in the MESSAGE hash), writer and reader in one place.
 * JSON with `payload` serialised last; the predicate script decodes it with cjson.
 */
type StoredMessage = Message;

export function storedMessageJson(m: StoredMessage): string {
  return JSON.stringify({ id: m.id, timeout: m.timeout, priority: m.priority, shard: m.shard, payload: m.payload });
}

/** Parses a stored message; a corrupt entry yields null rather than an exception mid-batch. */
export function parseStoredMessage(json: string | null): Message | null {
  if (json === null) return null;
  try {
    const m = JSON.parse(json) as Partial<Message>;
    if (typeof m.id !== 'string' || typeof m.payload !== 'string') return null;
    return {
      id: m.id,
      payload: m.payload,
      timeout: Number(m.timeout ?? 0),
      priority: Number(m.priority ?? 0),
      shard: String(m.shard ?? ''),
    };
  } catch {
    return null;
  }
}
