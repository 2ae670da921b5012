import { Redis } from 'ioredis';

/**
 * Run `use` on a one-off connection to 127.0.0.1:port that never retries or reconnects (a refused
 * or silent server fails it fast), closed afterwards. For readiness checks and inspection, never
 * for queue traffic (that goes through `connect()`).
 */
export async function withProbe<T>(port: number, use: (client: Redis) => Promise<T>, timeoutMs = 2_000): Promise<T> {
  const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs, commandTimeout: timeoutMs, disableClientInfo: true });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return await use(probe);
  } finally {
    probe.disconnect();
  }
}
