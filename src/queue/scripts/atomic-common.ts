import type { LuaRedis, LuaValue } from '../../redis/script.js';
import { luaTruthy } from '../../redis/script.js';

/**
 * Pieces shared by the atomic-mode scripts, each as Lua text and as its JS twin, so that every
 * script spells them the same way.
 *
 * Atomic layout per queue: MESSAGE hash (id → JSON), META hash (id → rank), LEASE hash
 * (id → current lease token), COUNTERS hash (no longer written: kept in the key layout so that `clear` still deletes what older
 * versions left there); per shard QUEUE (id → due ms, delayed), READY (id → rank, due) and UNACK
 * (id → lease deadline ms). rank = priority·10^13 + the client's ordering key (a per-instance
 * strictly increasing millisecond stamp), so READY pops by (priority, push order) over every due
 * message.
 *
 * Nothing a script returns or writes depends on replica-local state other than the message it is
 * about: lease tokens and ordering keys come from the client (ARGV), never from a server-side
 * counter, because Dynomite re-executes every script on every replica and votes on the replies.
 */

/** ARGV[1] is the client's now (ms); ARGV[2] = '1' asks for the server's clock instead. */
export const NOW_LUA = `local now = tonumber(ARGV[1])
if ARGV[2] == '1' then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
end`;

export function scriptNow(redis: LuaRedis, argv: readonly string[]): number {
  if (argv[1] === '1') {
    const [sec, micros] = redis.call('TIME') as [string, string];
    return Number(sec) * 1000 + Math.floor(Number(micros) / 1000);
  }
  return Number(argv[0]);
}

/** Due ids moved from QUEUE to READY per script call: the bound on one promotion's work. */
export const PROMOTE_BATCH = 1000;

/**
 * Moves up to PROMOTE_BATCH due ids, earliest due first, from QUEUE to READY with their rank (ids
 * without a rank are stale and dropped); returns how many it took out of QUEUE. Bounded: a backlog of
 * N due ids is promoted over N / PROMOTE_BATCH calls (pops, peeks and the reaper's promotion pass).
 * ZREM before ZADD: under maxmemory Redis refuses a script's memory-growing write (ZADD) only while the
 * script has written nothing, so a pop on a full Redis still promotes and leases (the queue drains).
 */
export const PROMOTE_LUA = `local function promote(queue, ready, meta, now)
  local due = redis.call('zrangebyscore', queue, '-inf', now, 'LIMIT', 0, ${PROMOTE_BATCH})
  for i=1,#due do
    local rank = redis.call('hget', meta, due[i])
    redis.call('zrem', queue, due[i])
    if rank then redis.call('zadd', ready, rank, due[i]) end
  end
  return #due
end`;

const PROMOTE_BATCH_ARG = String(PROMOTE_BATCH);

export function promote(redis: LuaRedis, queue: string, ready: string, meta: string, now: number): number {
  const due = redis.call('zrangebyscore', queue, '-inf', String(now), 'LIMIT', '0', PROMOTE_BATCH_ARG) as string[];
  for (const id of due) {
    const rank = redis.call('hget', meta, id);
    redis.call('zrem', queue, id);
    if (luaTruthy(rank)) redis.call('zadd', ready, rank as string, id);
  }
  return due.length;
}

/** Leases one id popped from READY under the client's token: returns {id, payload, token, deadline} or nil when it is stale. */
export const LEASE_LUA = `local function lease(id, msg, meta, leases, token, unack, deadline)
  local payload = redis.call('hget', msg, id)
  if not payload then
    redis.call('hdel', meta, id)
    return nil
  end
  redis.call('zadd', unack, deadline, id)
  redis.call('hset', leases, id, token)
  return {id, payload, token, deadline}
end`;

export interface LeaseKeys {
  readonly msg: string;
  readonly meta: string;
  readonly leases: string;
  readonly unack: string;
}

/**
 * `number` writes the deadline as an argument: Lua hands Redis "%.17g" (formatRedisDouble); the first
 * twins' `String` (shortest form) can differ from it for a fractional deadline and is kept where
 * recorded traces hold it.
 */
export function lease(redis: LuaRedis, id: string, k: LeaseKeys, token: string, deadline: number, number: (n: number) => string = String): LuaValue[] | null {
  const payload = redis.call('hget', k.msg, id);
  if (!luaTruthy(payload)) {
    redis.call('hdel', k.meta, id);
    return null;
  }
  redis.call('zadd', k.unack, number(deadline), id);
  redis.call('hset', k.leases, id, token);
  return [id, payload, token, deadline];
}

/** True when a token was given and is not the id's current lease. */
export const STALE_TOKEN_LUA = `local function stale_token(leases, id, token)
  return token ~= '' and redis.call('hget', leases, id) ~= token
end`;

export function staleToken(redis: LuaRedis, leases: string, id: string, token: string): boolean {
  return token !== '' && redis.call('hget', leases, id) !== token;
}

/** Acks an id held in one of the given UNACK sets: 1 when acked, 0 when the token is stale or it is not leased. */
export const ACK_LUA = `local function ack(msg, meta, leases, unacks, id, token)
  if stale_token(leases, id, token) then return 0 end
  for i = 1, #unacks do
    if redis.call('zrem', unacks[i], id) > 0 then
      redis.call('hdel', msg, id)
      redis.call('hdel', meta, id)
      redis.call('hdel', leases, id)
      return 1
    end
  end
  return 0
end`;

export function ack(redis: LuaRedis, msg: string, meta: string, leases: string, unacks: readonly string[], id: string, token: string): number {
  if (staleToken(redis, leases, id, token)) return 0;
  for (const unack of unacks) {
    if ((redis.call('zrem', unack, id) as number) > 0) {
      redis.call('hdel', msg, id);
      redis.call('hdel', meta, id);
      redis.call('hdel', leases, id);
      return 1;
    }
  }
  return 0;
}

/** Promotes ids due by `due_by` (now − settle), then leases up to `count` from READY under the client's `token`; appends id, payload, token, deadline to `out`. */
export const POP_LUA = `local function pop(msg, meta, leases, token, queue, ready, unack, due_by, count, deadline, out)
  promote(queue, ready, meta, due_by)
  local got = 0
  while got < count do
    local ids = redis.call('zrange', ready, 0, count - got - 1)
    if #ids == 0 then break end
    for i = 1, #ids do
      redis.call('zrem', ready, ids[i])
      local leased = lease(ids[i], msg, meta, leases, token, unack, deadline)
      if leased then
        got = got + 1
        for j = 1, 4 do out[#out + 1] = leased[j] end
      end
    end
  end
  return out
end`;

export interface PopKeys extends LeaseKeys {
  readonly queue: string;
  readonly ready: string;
}

/**
 * The keys of a script whose KEYS begin msg, meta, leases, counters, queue, ready, unack (pop,
 * ackAndPop, ackManyAndPop), read by index. The queue's fixed KEYS lists are frozen, and V8 takes
 * its slow generic path to destructure or slice a frozen array (5–13× slower than plain indexing here).
 */
export function localPopKeys(keys: readonly string[]): PopKeys {
  return { msg: keys[0]!, meta: keys[1]!, leases: keys[2]!, queue: keys[4]!, ready: keys[5]!, unack: keys[6]! };
}

/** KEYS from index `from` on, copied by index (not `slice`: see localPopKeys). */
export function keysFrom(keys: readonly string[], from: number): string[] {
  const out: string[] = [];
  for (let i = from; i < keys.length; i++) out.push(keys[i]!);
  return out;
}

export function pop(redis: LuaRedis, k: PopKeys, token: string, dueBy: number, count: number, deadline: number, out: LuaValue[]): LuaValue[] {
  promote(redis, k.queue, k.ready, k.meta, dueBy);
  let got = 0;
  while (got < count) {
    const ids = redis.call('zrange', k.ready, '0', String(count - got - 1)) as string[];
    if (ids.length === 0) break;
    for (const id of ids) {
      redis.call('zrem', k.ready, id);
      const leased = lease(redis, id, k, token, deadline);
      if (leased) {
        got++;
        out.push(...leased);
      }
    }
  }
  return out;
}

/** The functions of a script that acks and then pops (ackAndPop, ackManyAndPop), `now` first. */
export const ACK_THEN_POP_LUA = [NOW_LUA, STALE_TOKEN_LUA, ACK_LUA, PROMOTE_LUA, LEASE_LUA, POP_LUA].join('\n');
