import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynoq, root } from '../support/dynoq-cli.js';
import { redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

/** `dynoq check`: --mode, and --seed/--path/--replay-path that replay one failure. */
describe('dynoq check flags', () => {
  it.each([
    [['check', '--redis', 'redis://127.0.0.1:1', '--path', '1:2'], /--path replays one failure: give it with the --seed and --mode the failure printed/],
    [['check', '--redis', 'redis://127.0.0.1:1', '--seed', '5', '--path', '1:2'], /--path replays one failure/],
    [['check', '--redis', 'redis://127.0.0.1:1', '--replay-path', 'AB'], /--replay-path goes with --seed, --path and --mode/],
    [['check', '--redis', 'redis://127.0.0.1:1', '--mode', 'both'], /argument 'both' is invalid/],
  ])('%j is a usage error (exit 2), nothing connected', async (args, message) => {
    const r = await dynoq(args, root);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  describe.runIf(redisServerBinary() !== null)('on redis-server', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => server?.stop());

    it('--mode checks one mode; --seed and --path run the value at that path (here: one that agrees)', async () => {
      const r = await dynoq(['check', '--redis', server.url, '--mode', 'legacy', '--runs', '3'], root);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('legacy: 3 generated sequences agree with the model\n');
      const again = await dynoq(['check', '--redis', server.url, '--mode', 'atomic', '--seed', '7', '--path', '0', '--runs', '3'], root);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe('atomic: 3 generated sequences agree with the model\n');
    }, 60_000);
  });
});
