import { Cluster, Command, Redis, ReplyError, type ClusterOptions, type RedisOptions } from 'ioredis';
import { InvalidArgumentError } from '../errors/dynoq-errors.js';
import { parseDatabase } from './database.js';

/** A host and port of a Sentinel or a Cluster node. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface DynomiteOptions {
  /** The level of every (re)connection: `DYNO_CONFIG:CONN_CONSISTENCY <consistency>` on each ready. */
  readonly consistency: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM';
  /** Opt-in zone failover: the other racks' nodes, in the order to try them (default none: never moves). */
  readonly failover?: readonly HostPort[];
}

export interface ConnectOptions {
  /** Per-command timeout in ms (default 5000): a call on a dead connection fails instead of hanging. */
  readonly commandTimeout?: number;
  /** Connection timeout in ms (default 5000). */
  readonly connectTimeout?: number;
  /** Reconnect delay in ms (default 100; reconnects forever). */
  readonly reconnectDelayMs?: number;
  /** Sentinel: the sentinels to ask for the master named `name` (instead of a URL's host list). */
  readonly sentinels?: readonly HostPort[];
  /** Sentinel: the master group name. */
  readonly name?: string;
  /** Cluster: connect to these nodes as a Redis Cluster (instead of a `redis-cluster://` URL). */
  readonly cluster?: readonly HostPort[];
  readonly username?: string;
  readonly password?: string;
  /** Further ioredis options; the settings the queue depends on are applied over them. */
  readonly redisOptions?: RedisOptions;
  /** Further ioredis Cluster options (Cluster only); the settings the queue depends on are applied over them. */
  readonly clusterOptions?: ClusterOptions;
  /**
   * The server is a Dynomite node (single-server URL only): ioredis's CLIENT SETINFO handshake is
   * turned off (Dynomite closes the connection on CLIENT, so ioredis would reconnect forever), a
   * `/db` other than 0 is refused (SELECT closes it too), and every (re)connection first sends
   * `DYNO_CONFIG:CONN_CONSISTENCY <consistency>` when it becomes ready, which sets both the read and
   * the write level of that connection (Dynomite's default is DC_ONE; commands ioredis had queued
   * while connecting go first, at DC_ONE). Wrap the client in
   * `new IoredisStore(client, { dynomite: true })`.
   *
   * By default the client talks to the URL's node only and never moves: while that node is down
   * every call fails (`MaxRetriesPerRequestError`). `failover` opts in to zone failover, as Dyno's own
   * client does: the other racks' nodes, tried in this order after the URL's node, each time a
   * connection attempt fails before the node answered (refused, or timed out connecting). The client
   * stays on the node it reached until that node fails in turn; a node that closes an established
   * connection (an unsupported command) is reconnected to, not left.
   */
  readonly dynomite?: DynomiteOptions;
  /** Do not connect until the first command or `client.connect()`. */
  readonly lazyConnect?: boolean;
}

/**
 * The ioredis settings the queue's promises depend on (measured in test/conformance/connection-faults):
 * an in-flight command is never re-sent after a reconnect (it fails instead: a re-run pop would lease
 * messages nobody receives, a re-run ack would answer 0); commands not yet sent wait in the offline
 * queue and are tried at most once more; every command has a timeout.
 */
export function safeRedisOptions(options: ConnectOptions = {}): RedisOptions {
  const delay = options.reconnectDelayMs ?? 100;
  return {
    ...options.redisOptions,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.lazyConnect !== undefined ? { lazyConnect: options.lazyConnect } : {}),
    connectTimeout: options.connectTimeout ?? 5_000,
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeout ?? 5_000,
    retryStrategy: () => delay,
  };
}

function parseHosts(list: string, url: string, defaultPort: number): HostPort[] {
  const hosts = list.split(',').map((part) => {
    const m = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(part.trim());
    if (!m || !m[1]) throw new InvalidArgumentError('Redis URL', `bad host ${JSON.stringify(part)} in ${url}`);
    return { host: m[1], port: m[2] ? Number(m[2]) : defaultPort };
  });
  if (hosts.length === 0) throw new InvalidArgumentError('Redis URL', `no host in ${url}`);
  return hosts;
}

interface ParsedMulti {
  readonly hosts: HostPort[];
  readonly path: string;
  readonly username?: string;
  readonly password?: string;
}

/** `scheme://[user[:password]@]host:port,host:port[/path]` — URL() cannot parse a host list. */
function parseMultiHostUrl(url: string, scheme: string, defaultPort: number): ParsedMulti {
  const rest = url.slice(scheme.length + 3);
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : '';
  const afterAuth = at >= 0 ? rest.slice(at + 1) : rest;
  const slash = afterAuth.indexOf('/');
  const hostList = slash >= 0 ? afterAuth.slice(0, slash) : afterAuth;
  const path = slash >= 0 ? decodeURIComponent(afterAuth.slice(slash + 1).split('?')[0]!) : '';
  const [user, pass] = auth.includes(':') ? [auth.slice(0, auth.indexOf(':')), auth.slice(auth.indexOf(':') + 1)] : [auth, undefined];
  return {
    hosts: parseHosts(hostList, url, defaultPort),
    path,
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(pass !== undefined ? { password: decodeURIComponent(pass) } : {}),
  };
}

/**
 * An ioredis client with the settings the queue needs (see `safeRedisOptions`), for:
 * - `redis://[user:password@]host:port[/db]` and `rediss://…` (TLS) — one server; `db` must be a
 *   non-negative integer, and a database the server refuses fails the store's first command with
 *   `DatabaseRefusedError` (ioredis alone would carry on in database 0);
 * - `redis-sentinel://[user:password@]host:port,host:port/masterName` or `{ sentinels, name }` —
 *   the master a Sentinel group names, followed across failovers;
 * - `redis-cluster://[user:password@]host:port,host:port` or `{ cluster: [...] }` — a Redis Cluster
 *   (use the queue option `hashTag: true`). The Cluster client is also told not to re-send a
 *   command whose connection closed (`retryDelayOnFailover: 0`).
 * Close it with `client.quit()` (or `disconnect()`) when done, or the process will not exit.
 */
/** How often a Cluster client from connect() re-reads the slot map (ioredis's `slotsRefreshInterval`). */
const CLUSTER_SLOTS_REFRESH_MS = 1_000;

export function connect(url?: string, options: ConnectOptions = {}): Redis | Cluster {
  if (options.cluster || url?.startsWith('redis-cluster://') || url?.startsWith('rediss-cluster://')) {
    const tls = url?.startsWith('rediss-cluster://');
    const parsed = url ? parseMultiHostUrl(url, tls ? 'rediss-cluster' : 'redis-cluster', 6379) : undefined;
    const nodes = options.cluster ?? parsed!.hosts;
    const redisOptions = safeRedisOptions({
      ...(parsed?.username !== undefined ? { username: parsed.username } : {}),
      ...(parsed?.password !== undefined ? { password: parsed.password } : {}),
      ...options,
      redisOptions: { ...(tls ? { tls: {} } : {}), ...options.redisOptions },
    });
    const { lazyConnect, retryStrategy: _perNode, ...nodeOptions } = redisOptions;
    return new Cluster(
      nodes.map((n) => ({ host: n.host, port: n.port })),
      {
        ...options.clusterOptions,
        ...(lazyConnect !== undefined ? { lazyConnect } : {}),
        redisOptions: nodeOptions,
        enableOfflineQueue: true,
        retryDelayOnFailover: 0,
        // Re-read the slot map every second, so a failover's slot move is seen without waiting for a redirect.
        slotsRefreshInterval: options.clusterOptions?.slotsRefreshInterval ?? CLUSTER_SLOTS_REFRESH_MS,
        clusterRetryStrategy: () => options.reconnectDelayMs ?? 100,
      },
    );
  }
  if (options.sentinels || url?.startsWith('redis-sentinel://')) {
    const parsed = url ? parseMultiHostUrl(url, 'redis-sentinel', 26379) : undefined;
    const sentinels = options.sentinels ?? parsed!.hosts;
    const name = options.name ?? parsed?.path;
    if (!name) throw new InvalidArgumentError('Redis URL', 'Sentinel needs the master name: redis-sentinel://host:26379/mymaster or { name }');
    return new Redis({
      ...safeRedisOptions({
        ...(parsed?.username !== undefined ? { username: parsed.username } : {}),
        ...(parsed?.password !== undefined ? { password: parsed.password } : {}),
        ...options,
      }),
      sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })),
      name,
    });
  }
  const target = url ?? 'redis://127.0.0.1:6379';
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(target);
  } catch {
    throw new InvalidArgumentError('Redis URL', `${JSON.stringify(target)} is not a URL (redis://host:port, redis-sentinel://…, redis-cluster://…)`);
  }
  if (parsedUrl.protocol !== 'redis:' && parsedUrl.protocol !== 'rediss:') {
    throw new InvalidArgumentError('Redis URL', `unknown scheme ${parsedUrl.protocol} in ${target} (redis:, rediss:, redis-sentinel:, redis-cluster:)`);
  }
  checkDatabase(target, parsedUrl, options);
  if (options.dynomite) return connectDynomite(target, parsedUrl, options, options.dynomite);
  return new Redis(target, safeRedisOptions(options));
}

/** The `/db` path, a `?db=` query and `redisOptions.db` must each be a non-negative integer. */
function checkDatabase(target: string, url: URL, options: ConnectOptions): void {
  const path = url.pathname.replace(/^\//, '');
  if (path !== '') parseDatabase(decodeURIComponent(path), target);
  const query = url.searchParams.get('db');
  if (query !== null) parseDatabase(query, target);
  const db: unknown = options.redisOptions?.db;
  if (db !== undefined && (typeof db !== 'number' || !Number.isSafeInteger(db) || db < 0)) {
    throw new InvalidArgumentError('redisOptions.db', `${JSON.stringify(db)} is not a non-negative integer`);
  }
}

const CONSISTENCY_LEVELS = ['DC_ONE', 'DC_QUORUM', 'DC_SAFE_QUORUM'];

/** `dynomite.failover`: an array of `{ host, port }`, each a non-empty host and a TCP port. */
function checkFailover(failover: unknown): HostPort[] {
  if (failover === undefined) return [];
  if (!Array.isArray(failover)) throw new InvalidArgumentError('dynomite.failover', `${JSON.stringify(failover)} is not an array of { host, port }`);
  return failover.map((node: unknown, i) => {
    const n = node as Partial<HostPort> | null;
    if (typeof n !== 'object' || n === null || typeof n.host !== 'string' || n.host === '') {
      throw new InvalidArgumentError('dynomite.failover', `item ${i}: ${JSON.stringify(node)} has no host`);
    }
    if (typeof n.port !== 'number' || !Number.isInteger(n.port) || n.port < 1 || n.port > 65_535) {
      throw new InvalidArgumentError('dynomite.failover', `item ${i}: port ${JSON.stringify(n.port)} is not a TCP port (1-65535)`);
    }
    return { host: n.host, port: n.port };
  });
}

function connectDynomite(target: string, url: URL, options: ConnectOptions, dynomite: DynomiteOptions): Redis {
  const { consistency } = dynomite;
  if (!CONSISTENCY_LEVELS.includes(consistency)) {
    throw new InvalidArgumentError('dynomite.consistency', `${JSON.stringify(consistency)} is not one of ${CONSISTENCY_LEVELS.join(', ')}`);
  }
  const failover = checkFailover(dynomite.failover);
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && db !== '0') throw new InvalidArgumentError('Redis URL', `Dynomite has one database (it closes the connection on SELECT): ${target}`);
  const base = safeRedisOptions(options);
  const nodes: HostPort[] = [{ host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 6379 }, ...failover];
  let current = 0;
  let answered = false;
  const client = new Redis(target, {
    ...base,
    disableClientInfo: true,
    connectionName: undefined,
    db: 0,
    // Zone failover (opt-in): a connection attempt that never reached ready moves the next attempt to
    // the next node. ioredis's connector reads host and port from client.options at each connect.
    ...(failover.length > 0
      ? {
          retryStrategy: (times: number) => {
            if (!answered) {
              current = (current + 1) % nodes.length;
              client.options.host = nodes[current]!.host;
              client.options.port = nodes[current]!.port;
            }
            answered = false;
            return base.retryStrategy!(times);
          },
        }
      : {}),
  });
  holdUntilConsistencySet(client, consistency);
  client.on('ready', () => {
    answered = true;
  });
  return client;
}


type SendCommand = Redis['sendCommand'];

/**
 * Every connection's first command is `DYNO_CONFIG:CONN_CONSISTENCY <level>`, and nothing follows it
 * on the wire until it is answered. Measured on the real Dynomite build: it discards whatever follows
 * that command in the same read (never run, never answered), and ioredis then pairs every later reply
 * with the wrong command — a client that used the connection right after `ready` had every call time
 * out, or got another call's reply. So, from `ready` (ioredis flushes its offline queue just before)
 * until the level is answered, commands are held here and sent in order after the reply: the queued
 * ones too, which therefore run at the connection's level, not at Dynomite's default DC_ONE. A level
 * that is refused with an error reply leaves the connection at the server's default; one that is not
 * answered (the connection broke, a timeout) closes the connection: ioredis reconnects and the held
 * commands go to its offline queue for the next connection.
 */
function holdUntilConsistencySet(client: Redis, consistency: string): void {
  const send: SendCommand = client.sendCommand.bind(client);
  let settled = false;
  let held: Parameters<SendCommand>[] = [];
  const release = () => {
    const queued = held;
    held = [];
    for (const args of queued) void send(...args);
  };
  client.sendCommand = ((...args: Parameters<SendCommand>) => {
    if (settled || client.status !== 'ready') return send(...args);
    held.push(args);
    return (args[0] as Command).promise;
  }) as SendCommand;
  client.on('close', () => {
    settled = false;
    release();
  });
  // ioredis sets status 'ready', flushes its offline queue (held above), then emits 'ready' a tick later.
  client.on('ready', () => {
    settled = false;
    const level = new Command('DYNO_CONFIG:CONN_CONSISTENCY', [consistency]);
    void send(level);
    level.promise.then(
      () => {
        settled = true;
        release();
      },
      (err: unknown) => {
        client.emit('error', err);
        // Answered with an error (not a Dynomite, say): the connection works, at the server's default
        // level, and asking again would only fail again. Anything else (a timeout, a broken
        // connection): reconnect and ask again; the held commands wait for the next connection.
        if (err instanceof ReplyError) {
          settled = true;
          release();
        } else client.disconnect(true);
      },
    );
  });
}
