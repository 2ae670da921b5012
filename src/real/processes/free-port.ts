import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports below this are left alone (well-known and registered services). */
const LOWEST = 10_000;

/**
 * The first port of the kernel's ephemeral range, where outgoing connections take their local ports
 * (Linux default 32768). A port the OS picked from that range for us can be taken by any client's
 * connection before our server binds it ("Address already in use" in a busy test run), so ports are
 * drawn below it.
 */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low !== undefined && Number.isInteger(low) && low > LOWEST + 1_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function listensOn(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => {
      const address = srv.address();
      const bound = typeof address === 'object' && address ? address.port : null;
      srv.close(() => resolve(bound));
    });
  });
}

/** A port drawn at random below the ephemeral range (less `offset`) with it and port + `offset` free, or null after 64 draws. */
async function drawFree(offset: number): Promise<number | null> {
  const high = ephemeralLow() - offset;
  for (let i = 0; high > LOWEST && i < 64; i++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if ((await listensOn(port)) !== null && (offset === 0 || (await listensOn(port + offset)) !== null)) return port;
  }
  return null;
}

/**
 * A TCP port on 127.0.0.1 nothing listens on right now, outside the ephemeral range when one is free
 * there (drawn at random, so parallel test files rarely draw the same); else one the OS picks.
 */
export async function freePort(): Promise<number> {
  const picked = (await drawFree(0)) ?? (await listensOn(0));
  if (picked === null) throw new Error('no free TCP port on 127.0.0.1');
  return picked;
}

/**
 * A port P on 127.0.0.1 with P + `offset` free too, both below the ephemeral range: a Redis Cluster node
 * listens on its port and on its cluster bus, port + 10000, and exits at start if either is taken (the
 * bus of a port drawn above 22768 would land in the range where outgoing connections take their ports).
 */
export async function freePortPair(offset: number): Promise<number> {
  const port = await drawFree(offset);
  if (port === null) throw new Error(`no free pair of TCP ports ${offset} apart below the ephemeral range on 127.0.0.1`);
  return port;
}
