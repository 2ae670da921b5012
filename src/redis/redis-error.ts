/** An error reply, worded as Redis words it. */
export class RedisError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisError';
  }
}

export const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
export const SYNTAX = 'ERR syntax error';
export const NOT_FLOAT = 'ERR value is not a valid float';
export const NOT_INTEGER = 'ERR value is not an integer or out of range';
export const MIN_MAX_NOT_FLOAT = 'ERR min or max is not a float';
