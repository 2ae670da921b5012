import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.js';
import { exploreCommand } from '../../src/cli/commands/explore.js';
import { readKnown } from '../../src/cli/known-mechanisms.js';
import type { SeedOutcome } from '../../src/sim/campaign/explore.js';
import { dynoq, root as repo } from '../support/dynoq-cli.js';

const outcomes = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as SeedOutcome);

describe('dynoq explore as a CI gate: --require, --faults, --known', () => {
  const root = mkdtempSync(join(tmpdir(), 'dynoq-gate-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a finding that breaks only properties outside --require is reported, not failed', async () => {
    const all = join(root, 'all');
    const failed = await exploreCommand({ runs: 6, seed: 'explore', out: all });
    const seen = outcomes(join(all, 'explore.jsonl'));
    const violated = [...new Set(seen.flatMap((o) => o.failing))];
    expect(failed).toBe(1);
    expect(violated.length).toBeGreaterThan(0);
    // Require only what none of these runs violated: the same seeds pass the gate.
    const kept = (['noPhantoms'] as const).filter((p) => !violated.includes(p));
    expect(kept).toEqual(['noPhantoms']);
    const gated = join(root, 'gated');
    expect(await exploreCommand({ runs: 6, seed: 'explore', out: gated, require: ['noPhantoms'] })).toBe(0);
    const again = outcomes(join(gated, 'explore.jsonl'));
    expect(again.map((o) => o.failing)).toEqual(seen.map((o) => o.failing));
    expect(again.every((o) => o.gate.length === 0 && o.scenario === undefined)).toBe(true);
  }, 300_000);

  it('findings whose every mechanism is --known do not fail the gate', async () => {
    const first = join(root, 'first');
    await exploreCommand({ runs: 4, seed: 'explore', out: first });
    const mechanisms = [...new Set(outcomes(join(first, 'explore.jsonl')).flatMap((o) => o.mechanisms))];
    expect(mechanisms.length).toBeGreaterThan(0);
    const known = join(root, 'known.json');
    writeFileSync(known, JSON.stringify(mechanisms));
    expect(await exploreCommand({ runs: 4, seed: 'explore', out: join(root, 'second'), known })).toBe(0);
  }, 300_000);

  it('--faults draws only the families named', async () => {
    const out = join(root, 'pause');
    await exploreCommand({ runs: 4, seed: 'explore', out, faults: ['client-pause'] });
    expect(outcomes(join(out, 'explore.jsonl')).length).toBe(4);
    const { randomConfiguration } = await import('../../src/sim/campaign/explore.js');
    for (const i of [0, 1, 2, 3]) {
      for (const f of randomConfiguration(`explore-${i}`, ['client-pause']).faults) expect(f.kind).toBe('pause-client');
    }
  });

  it('bad gate input is a usage error naming it (exit 2)', async () => {
    const r = await dynoq(['explore', '--runs', '1', '--faults', 'meteor', '--out', join(root, 'x')], repo);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not meteor');
    const p = await dynoq(['explore', '--runs', '1', '--require', 'fast', '--out', join(root, 'x')], repo);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('not fast');
    const bad = join(root, 'bad-known.json');
    writeFileSync(bad, JSON.stringify(['just a kind']));
    expect(() => readKnown(bad)).toThrow(CliError);
  }, 120_000);
});
