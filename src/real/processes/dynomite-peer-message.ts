/**
 * Commands that only read: sent to peers for a quorum vote, not replicated. Anything else — a write, a
 * script (every rack runs it, DYNOMITE.md "Scripts"), a command not listed — counts as replicated.
 */
const READ_COMMANDS: ReadonlySet<string> = new Set([
  'get', 'mget', 'strlen', 'exists', 'type', 'ttl', 'pttl', 'scan',
  'hget', 'hmget', 'hgetall', 'hexists', 'hlen', 'hkeys', 'hvals', 'hscan',
  'zscore', 'zrank', 'zrevrank', 'zcard', 'zcount', 'zrange', 'zrevrange', 'zrangebyscore', 'zrevrangebyscore', 'zscan',
  'smembers', 'sismember', 'scard', 'lrange', 'llen', 'lindex',
]);

/** A RESP command's name at the start of a request: `*N\r\n$len\r\nNAME\r\n`. */
const COMMAND = /\*\d+\r\n\$\d+\r\n([A-Za-z_:]+)\r\n/g;

/** How much of a chunk is read for command names: a dnode header and a command's name fit well within it. */
const SCAN_BYTES = 1_024;

/**
 * Whether bytes a Dynomite node sends a peer carry a request the peer replicates — a write or a
 * script, which every rack runs (DYNOMITE.md "Scripts") — rather than only a read sent for a quorum
 * vote. A peer message is a dnode header (`$2014$ id type flags ver same_dc *1 d *len\r\n`) and the
 * client's RESP command. A chunk that names no command (the rest of a long one) counts as replicated:
 * it continues the request before it, which is most often a long script.
 */
export function carriesReplicatedRequest(chunk: Buffer): boolean {
  const text = chunk.toString('latin1', 0, Math.min(chunk.length, SCAN_BYTES));
  let named = false;
  for (const m of text.matchAll(COMMAND)) {
    named = true;
    if (!READ_COMMANDS.has(m[1]!.toLowerCase())) return true;
  }
  return !named;
}
