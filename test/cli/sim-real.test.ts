import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynoq } from '../support/dynoq-cli.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/** `dynoq sim --real` and scenario `real: true`: the real twin from the command line. */
describe('dynoq sim --real', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-sim-real-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('a configuration with a fault that has no real means is refused before any process starts (exit 2, naming it)', async () => {
    const file = join(cwd, 'partitioned.json');
    writeFileSync(file, JSON.stringify({ name: 'partitioned', description: 'a partition on a primary with replicas', topology: { kind: 'primary-replica' }, faults: [{ at: 100, kind: 'partition', from: 'a', to: 'b', durationMs: 500 }], real: true, expect: {} }));
    const r = await dynoq(['sim', file], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot run this configuration on real processes[\s\S]*partition/);
    const flags = await dynoq(['sim', '--real', '--configuration', 'primary-replica/atomic/none', '--trace', join(cwd, 't.jsonl')], cwd);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/--trace/);
    const links = await dynoq(['sim', '--configuration', 'dynomite/DC_QUORUM/atomic/none', '--peer-links', 'loopback'], cwd);
    expect(links.code).toBe(2);
    expect(links.stderr).toMatch(/--peer-links .*give --real/);
    const primaryLinks = await dynoq(['sim', '--real', '--configuration', 'primary-replica/atomic/none', '--peer-links', 'loopback'], cwd);
    expect(primaryLinks.code).toBe(2);
    expect(primaryLinks.stderr).toMatch(/--peer-links: only a Dynomite twin has peer links/);
    const badLinks = await dynoq(['sim', '--real', '--configuration', 'dynomite/DC_QUORUM/atomic/none', '--peer-links', 'lan'], cwd);
    expect(badLinks.code).toBe(2);
    expect(badLinks.stderr).toMatch(/--peer-links/);
  }, 60_000);

  it.runIf(available)('a real scenario runs on real processes, writes its history, and replay checks what it must keep', async () => {
    const file = join(cwd, 'real-none.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'real-none', description: 'no faults, for real', topology: { kind: 'primary-replica' }, queue: { mode: 'atomic' }, workload: { messages: 20 }, phases: { safetyMs: 2_000, livenessMs: 10_000 }, real: true, expect: { hold: ['atLeastOnce', 'noDoublePop'] } }),
    );
    const history = join(cwd, 'h.jsonl');
    const r = await dynoq(['sim', file, '--history', history], cwd);
    expect(r.stdout).toMatch(/\(real twin\)/);
    expect(r.stdout).toMatch(/messages: 20 pushed \(ok\)/);
    expect(r.code).toBe(0);
    const judged = await dynoq(['judge', history], cwd);
    expect(judged.code).toBe(0);
    expect(readFileSync(history, 'utf8').split('\n').filter((l) => l.includes('"type":"push"'))).toHaveLength(20);
    const replayed = await dynoq(['replay', file], cwd);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(/ok {3}.*real twin\): held \[.*atLeastOnce/);
  }, 120_000);
});
