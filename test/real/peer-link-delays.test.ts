import { describe, expect, it } from 'vitest';
import { carriesReplicatedRequest } from '../../src/real/processes/dynomite-peer-message.js';
import { peerLinkDelays } from '../../src/real/twin/peer-link-delays.js';
import { parseSimConfig } from '../../src/sim/run/config.js';

const mean = (draw: () => number, n = 20_000) => Array.from({ length: n }, draw).reduce((a, b) => a + b, 0) / n;

/** A peer message as a Dynomite node sends it: the dnode header, then the client's RESP command. */
const peerMessage = (...args: string[]) => {
  const resp = `*${args.length}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`;
  return Buffer.from(`   $2014$ 7 3 0 1 1 *1 d *${resp.length}\r\n${resp}`, 'latin1');
};
const WRITE = peerMessage('ZADD', 'dynoq.QUEUE.q.a', '1', 'm1');
const SCRIPT = peerMessage('EVAL', 'return 1', '1', 'k');
const READ = peerMessage('HGET', 'dynoq.MESSAGE.q', 'm1');

describe("peerLinkDelays: the configuration's network on a real Dynomite's peer links", () => {
  it('tells a replicated request (a write, a script, the rest of a long one) from a read sent for a vote', () => {
    expect(carriesReplicatedRequest(WRITE)).toBe(true);
    expect(carriesReplicatedRequest(SCRIPT)).toBe(true);
    expect(carriesReplicatedRequest(READ)).toBe(false);
    expect(carriesReplicatedRequest(peerMessage('SET', 'k', 'v'))).toBe(true);
    expect(carriesReplicatedRequest(peerMessage('ZRANGEBYSCORE', 'dynoq.QUEUE.q.a', '0', '1'))).toBe(false);
    expect(carriesReplicatedRequest(Buffer.concat([READ, WRITE]))).toBe(true);
    expect(carriesReplicatedRequest(Buffer.from('the rest of a long script\r\n'))).toBe(true);
  });

  it("draws a replicated request's delay as one link latency plus the replication lag, a read's and a reply's as one latency, on the profile's figures", () => {
    const { network } = parseSimConfig({ seed: 's', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] } });
    const d = peerLinkDelays('s', network);
    // lan: 0.5 ms + 0.5 ms mean jitter a hop, 5 ms mean lag.
    expect(mean(() => d.upstream!(WRITE))).toBeCloseTo(6, 0);
    expect(mean(() => d.upstream!(SCRIPT))).toBeCloseTo(6, 0);
    expect(mean(() => d.upstream!(READ))).toBeCloseTo(1, 0);
    expect(mean(() => d.downstream!(WRITE))).toBeCloseTo(1, 0);
    expect(Math.min(...Array.from({ length: 1_000 }, () => d.downstream!(WRITE)))).toBeGreaterThanOrEqual(0.5);
  });

  it("follows the configuration's own figures, its spikes and its seed", () => {
    const { network } = parseSimConfig({ seed: 's', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, network: { lagMeanMs: 0.3, latencyBaseMs: 0.1, latencyJitterMs: 0.1 } });
    const loopbackLike = peerLinkDelays('s', network);
    expect(mean(() => loopbackLike.upstream!(WRITE))).toBeCloseTo(0.5, 1);
    const five = (seed: string) => {
      const d = peerLinkDelays(seed, network);
      return Array.from({ length: 5 }, () => d.upstream!(WRITE));
    };
    expect(five('x')).toEqual(five('x'));
    expect(five('x')).not.toEqual(five('y'));
    // wan: 1 % of replicated requests spike by 200 ms.
    const wan = parseSimConfig({ seed: 's', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, network: { profile: 'wan' } }).network;
    const w = peerLinkDelays('s', wan);
    const spiked = Array.from({ length: 20_000 }, () => w.upstream!(WRITE)).filter((x) => x >= 200).length;
    expect(spiked).toBeGreaterThan(100);
    expect(spiked).toBeLessThan(320);
    expect(Array.from({ length: 5_000 }, () => w.upstream!(READ)).some((x) => x >= 200)).toBe(false);
  });
});
