import * as z from 'zod';
import { DynomiteTopology } from '../topology/dynomite.js';
import { nodeName } from '../topology/node-name.js';
import { at, between, ms, zone } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const stallNode = z
  .object({
    at,
    kind: z.literal('stall-node').describe('the fault: stall-node'),
    zone: zone.describe("the zone whose Dynomite process is paused with its connections alive: clients' requests and peers' writes wait and run in order when it resumes (dynomite only)"),
    durationMs: ms.describe('how long it is paused'),
  })
  .strict();
const stallBackend = z
  .object({
    at,
    kind: z.literal('stall-backend').describe('the fault: stall-backend'),
    zone: zone.describe("the zone whose node's redis is paused: its commands run late; once the oldest waits 5 s Dynomite closes the connection, that one still runs on resume, those behind it are dropped, and until the redis runs again its requests are refused (dynomite only)"),
    durationMs: ms.describe('how long it is paused'),
  })
  .strict();
const nodeStallSchemas = [stallNode, stallBackend] as const;

/**
 * A Dynomite process or its redis stalls (SIGSTOP, a long fork or GC) with TCP alive (DYNOMITE.md
 * "Failures and repair"): nothing is refused, everything waits and runs late and in order; requests
 * that outlive Dynomite's timeouts are reported failed although they run on resume, and writes issued
 * to a stalled peer after its link timed out are dropped. A redis paused past the 5 s datastore
 * timeout loses the requests queued behind the timed-out one (DynomiteBackend).
 */
export const nodeStall = faultFamily<'node-stall', typeof nodeStallSchemas>({
  family: 'node-stall',
  description: 'a Dynomite process or its redis is paused (connections alive) and resumes',
  schemas: nodeStallSchemas,
  requiresTopology: 'dynomite',
  apply(world, f, exposure) {
    if (!(world.topology instanceof DynomiteTopology)) return;
    const node = world.topology.nodes.find((n) => n.zone === f.zone)!;
    const process = f.kind === 'stall-node' ? 'dynomite' : 'redis';
    const o = world.observations;
    const stops = [
      o.listen('held', (e) => e.node === node.name && e.process === process && exposure.add('requests held by the pause')),
      o.listen('storage-error', (e) => {
        if (e.node !== node.name) return;
        if (e.cause === 'timeout') exposure.add('requests Dynomite timed out');
        else if (e.cause === 'dropped') exposure.add('requests dropped behind a timed-out one');
        else if (e.cause === 'disconnected') exposure.add('requests refused while the datastore connection was closed');
      }),
      o.listen('link-timeout', (e) => e.to === node.name && exposure.add('peer links timed out')),
      o.listen('link-dropped', (e) => e.to === node.name && exposure.add('writes dropped on a timed-out link')),
    ];
    exposure.atEnd(() => stops.forEach((stop) => stop()));
    world.topology.pause(node, process, world.kernel.now + f.durationMs);
  },
  healAll(world) {
    if (world.topology instanceof DynomiteTopology) world.topology.resumeAll();
  },
  applicable: (c) => c.topology.kind === 'dynomite',
  generate(rng, ctx) {
    const kind = rng.chance(0.5) ? ('stall-node' as const) : ('stall-backend' as const);
    return [{ at: ctx.at, kind, zone: rng.pick(ctx.zones), durationMs: between(rng, 100, ctx.safetyMs) }];
  },
  targets: (f) => ({ zones: [f.zone] }),
  band: (f, t, ctx) => ({
    kind: f.kind,
    lane: nodeName(ctx.config.topology.kind, ctx.config.topology.zones, f.zone),
    from: t,
    to: t + f.durationMs,
    label: `${f.kind === 'stall-node' ? 'Dynomite' : 'redis'} of ${f.zone} paused ${f.durationMs} ms`,
  }),
  exposureNames: [
    'writes dropped on a timed-out link',
    'requests dropped behind a timed-out one',
    'peer links timed out',
    'requests Dynomite timed out',
    'requests refused while the datastore connection was closed',
    'requests held by the pause',
  ],
  advice: {
    deliveredPromptly: 'a paused node or redis answers nothing meanwhile: its shard\'s messages wait for the stall to end (up to the 5 s datastore timeout).',
    atLeastOnce: 'a paused Dynomite or redis runs what it received late, and drops writes sent after a peer link timed out: keep pauses (fork, swap, GC) well below the peer timeout and treat timed-out writes as unknown.',
    noDoublePop: 'a paused replica applies leases and acks late, after the others moved on: pop and ack with quorum and keep leases longer than the longest stall.',
  },
  bandColour: '#5c2e91',
});
