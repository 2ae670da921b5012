import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeReply } from '../../src/sim/store/store-op.js';
import { QUORUM_FAILED, ReplyVote, sameContent } from '../../src/sim/topology/dynomite.js';

/** DYNOMITE.md "Replies under quorum", read as a decision over the whole arrival order. */
function expected(level: 'DC_QUORUM' | 'DC_SAFE_QUORUM', replies: NodeReply[]): { reply: NodeReply; after: number } {
  const quorum = Math.floor(replies.length / 2) + 1;
  const same = (a: NodeReply, b: NodeReply) => a.ok && b.ok && JSON.stringify(a.value) === JSON.stringify(b.value);
  for (let n = 1; n <= replies.length; n++) {
    const seen = replies.slice(0, n);
    const last = seen[n - 1]!;
    if (last.ok && seen.filter((x) => same(x, last)).length >= quorum) return { reply: last, after: n };
    const good = seen.filter((x) => x.ok).length;
    if (good + (replies.length - n) < quorum) return { reply: seen.find((x) => !x.ok)!, after: n };
  }
  const reply = level === 'DC_SAFE_QUORUM' ? { ok: false as const, error: QUORUM_FAILED } : replies.find((x) => x.ok)!;
  return { reply, after: replies.length };
}

const replyArb: fc.Arbitrary<NodeReply> = fc.oneof(
  fc.constantFrom(0, 1, 2).map((v) => ({ ok: true as const, value: v })),
  fc.constantFrom(['m1', 'x'], ['m1', 'y'], []).map((v) => ({ ok: true as const, value: [...v] })),
  fc.constantFrom('ERR Storage: Datastore refused connection', 'ERR Peer: Connection timed out').map((error) => ({ ok: false as const, error })),
);

describe('ReplyVote', () => {
  it('answers once, with the reply and at the arrival the quorum rules give', () => {
    fc.assert(
      fc.property(fc.constantFrom('DC_QUORUM' as const, 'DC_SAFE_QUORUM' as const), fc.integer({ min: 1, max: 5 }).chain((n) => fc.array(replyArb, { minLength: n, maxLength: n })), (level, replies) => {
        const answers: { reply: NodeReply; after: number }[] = [];
        let arrived = 0;
        const vote = new ReplyVote(level, replies.length, (reply) => answers.push({ reply, after: arrived }));
        for (const r of replies) {
          arrived++;
          vote.arrive(r);
        }
        expect(answers).toEqual([expected(level, replies)]);
      }),
      { numRuns: 3_000 },
    );
  });
});

/** Replies as scripts give them (strings, numbers, null, nested arrays), with JSON's corner cases mixed in. */
const contentArb: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('', '0', '1', 'm1', 'null'),
    fc.constantFrom(0, -0, 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    fc.constant(null),
    fc.array(fc.oneof(tie('v'), fc.constant(undefined)), { maxLength: 3 }),
  ),
})).v;

describe('sameContent', () => {
  it('is JSON equality of two replies, without serializing them', () => {
    fc.assert(
      fc.property(contentArb, contentArb, (a, b) => {
        expect(sameContent(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(sameContent(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });
});
