import type { Cluster, Redis } from 'ioredis';
import { InvalidArgumentError } from '../errors/dynoq-errors.js';
import { DatabaseRefusedError } from './errors.js';

/**
 * A database index from a URL's path or query: decimal digits only. ioredis would parseInt it, so
 * `/abc` became SELECT NaN (an unhandled rejection) and `/2x` silently meant database 2.
 */
export function parseDatabase(text: string, url: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InvalidArgumentError('Redis URL', `the database ${JSON.stringify(text)} in ${url} is not a non-negative integer (redis://host:port/0)`);
  }
  return Number(text);
}

/** The database the client was told to use (a Cluster has only database 0). */
export function wantedDatabase(client: Redis | Cluster): number {
  if ((client as { isCluster?: boolean }).isCluster === true) return 0;
  const db = (client as Redis).options.db ?? 0;
  if (!Number.isSafeInteger(db) || db < 0) {
    throw new InvalidArgumentError('ioredis db option', `${String(db)} is not a non-negative integer`);
  }
  return db;
}

/**
 * Confirms the connection is on the wanted database. ioredis sends SELECT when it connects, but
 * when the server refuses it (an index past `databases`) it only emits 'error' and carries on in
 * database 0; so SELECT is sent once more here and a refusal becomes `DatabaseRefusedError`.
 */
export async function verifyDatabase(client: Redis | Cluster): Promise<void> {
  const db = wantedDatabase(client);
  if (db === 0) return;
  try {
    await (client as Redis).select(db);
  } catch (err) {
    // A reply from the server is a refusal; anything else (a closed connection) may pass on retry.
    if (err instanceof Error && err.name === 'ReplyError') throw new DatabaseRefusedError(db, err.message);
    throw err;
  }
}
