import { describe, expect, it } from 'vitest';
import { peerLinkDelays } from '../../src/real/twin/peer-link-delays.js';
import { parseSimConfig } from '../../src/sim/run/config.js';

const mean = (draw: () => number, n = 20_000) => Array.from({ length: n }, draw).reduce((a, b) => a + b, 0) / n;

describe("peerLinkDelays: the configuration's network on a real Dynomite's peer links", () => {
  it("draws a request's delay as one link latency plus the replication lag, a reply's as one latency, on the profile's figures", () => {
    const { network } = parseSimConfig({ seed: 's', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] } });
    const d = peerLinkDelays('s', network);
    // lan: 0.5 ms + 0.5 ms mean jitter a hop, 5 ms mean lag.
    expect(mean(d.upstream!)).toBeCloseTo(6, 0);
    expect(mean(d.downstream!)).toBeCloseTo(1, 0);
    expect(Math.min(...Array.from({ length: 1_000 }, d.downstream!))).toBeGreaterThanOrEqual(0.5);
  });

  it("follows the configuration's own figures and its seed", () => {
    const { network } = parseSimConfig({ seed: 's', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, network: { lagMeanMs: 0.3, latencyBaseMs: 0.1, latencyJitterMs: 0.1 } });
    expect(mean(peerLinkDelays('s', network).upstream!)).toBeCloseTo(0.5, 1);
    const draws = (seed: string) => Array.from({ length: 5 }, peerLinkDelays(seed, network).upstream!);
    expect(draws('x')).toEqual(draws('x'));
    expect(draws('x')).not.toEqual(draws('y'));
  });
});
