import { describe, expect, it } from 'vitest';
import { dynoq, root } from '../support/dynoq-cli.js';

describe('dynoq replay output', () => {
  it('a scenario that records violations names them on its ok line', async () => {
    const r = await dynoq(['replay', 'scenarios/primary-crash-loses-pushes.json'], root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}scenarios\/primary-crash-loses-pushes\.json .*violated \[atLeastOnce, acksAreFinal, deliveredPromptly\] as recorded/m);
  }, 60_000);
});
