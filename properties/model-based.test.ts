import { describe, it } from 'vitest';
import { layoutsOf, modelCheck } from '../src/testing/model-check/model-check.js';
import type { QueueMode } from '../src/queue/dyno-queue.js';
import { backendNames, useBackend } from '../test/support/backends.js';
import { simulatedNode } from '../test/support/model-check-node.js';

const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const MODES: QueueMode[] = ['atomic', 'legacy'];

describe.each(MODES)('model-based: %s mode agrees with the reference model', (mode) => {
  it('on a single simulated node, each sequence on a layout of its own (settle time, an extra shard, the server’s clock)', async () => {
    await modelCheck({ mode, runs: Math.round(1_000 * SCALE), layouts: layoutsOf(mode, true), setup: simulatedNode });
  }, 300_000);

  describe.each(backendNames())('on %s', (backendName) => {
    const backend = useBackend(backendName);
    it('every reply and the final state', async () => {
      await modelCheck({ mode, runs: Math.round((backendName === 'redis' ? 300 : 600) * SCALE), setup: () => ({ store: backend.store(), run: (p) => p }) });
    }, 300_000);
  });
});
