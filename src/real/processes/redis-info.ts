import { Redis } from 'ioredis';

/** `INFO <section>` of the redis-server at 127.0.0.1:port as field → value (a probe connection that never retries). */
export async function redisInfo(port: number, section: string): Promise<Record<string, string>> {
  const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, commandTimeout: 2_000, disableClientInfo: true });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    const fields: Record<string, string> = {};
    for (const line of (await probe.info(section)).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
    }
    return fields;
  } finally {
    probe.disconnect();
  }
}
