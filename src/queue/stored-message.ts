/** The stored JSON form of a message; `payload` is always serialised last (see find-by-payload-pattern). */
export interface StoredMessage {
  readonly id: string;
  readonly timeout: number;
  readonly priority: number;
  readonly shard: string;
  readonly payload: string;
}

export function storedMessageJson(m: StoredMessage): string {
  return JSON.stringify({ id: m.id, timeout: m.timeout, priority: m.priority, shard: m.shard, payload: m.payload });
}

export function payloadOfStoredJson(json: string): string | null {
  try {
    const parsed = JSON.parse(json) as { payload?: unknown };
    return typeof parsed.payload === 'string' ? parsed.payload : null;
  } catch {
    return null;
  }
}
