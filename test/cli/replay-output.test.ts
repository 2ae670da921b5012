import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dynoq, root } from '../support/dynoq-cli.js';

describe('dynoq replay output', () => {
  it('a scenario that records violations names them on its ok line', async () => {
    const r = await dynoq(['replay', 'scenarios/primary-crash-loses-pushes.json'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}scenarios\/primary-crash-loses-pushes\.json .*violated \[atLeastOnce, acksAreFinal, deliveredPromptly\] as recorded/m);
  }, 60_000);

  it('a scenario that still names a struck zone `zone` replays as recorded, with one warning line per fault on stderr; both names is exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dynoq-zone-'));
    try {
      const json = JSON.parse(readFileSync(join(root, 'scenarios/zone-failover-mid-pop.json'), 'utf8')) as { faults: Record<string, unknown>[] };
      const old = join(dir, 'old.json');
      writeFileSync(old, JSON.stringify({ ...json, faults: json.faults.map(({ target, ...f }) => ({ ...f, zone: target })) }));
      const r = await dynoq(['replay', old], root);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/1 of 1 scenario\(s\) replayed as recorded/);
      expect(r.stderr.match(/^warning: .*old\.json: faults\[\d\]\.zone is deprecated: name the zone a fault strikes `target`/gm)).toHaveLength(2);
      const both = join(dir, 'both.json');
      writeFileSync(both, JSON.stringify({ ...json, faults: json.faults.map((f) => ({ ...f, zone: f.target })) }));
      const refused = await dynoq(['replay', both], root);
      expect(refused.code).toBe(2);
      expect(refused.stdout + refused.stderr).toMatch(/faults\.0\.zone: give `target` \(or its deprecated name `zone`\), not both/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
