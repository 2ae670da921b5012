import { withProbe } from './probe.js';

/** `INFO <section>` of the redis-server at 127.0.0.1:port as field → value (a probe connection that never retries). */
export async function redisInfo(port: number, section: string): Promise<Record<string, string>> {
  return withProbe(port, async (probe) => {
    const fields: Record<string, string> = {};
    for (const line of (await probe.info(section)).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
    }
    return fields;
  });
}
