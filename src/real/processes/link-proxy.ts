import { connect, createServer, type Socket } from 'node:net';

/** `upstream`: bytes from the proxy's clients to the target; `downstream`: the target's replies. */
type LinkDirection = 'upstream' | 'downstream';

/**
 * A network slower than loopback on the link: per direction, the one-way delay (ms) of each chunk of
 * bytes read, drawn when it is read (from what it carries). A chunk never overtakes the one before it on its connection
 * (one TCP stream delivers in order): it leaves at the later of its own time and the previous one's.
 * Chunks on their way when their sender closes or dies still arrive (its kernel had sent them).
 */
export type LinkDelays = Partial<Record<LinkDirection, (chunk: Buffer) => number>>;

/**
 * A TCP proxy on 127.0.0.1 (a free port) forwarding every connection to one target port, with each
 * direction blockable on its own (a network link that can be cut one way or both) and optionally
 * delayed (LinkDelays).
 */
export interface LinkProxy {
  /** The port to connect to instead of the target. */
  readonly port: number;
  readonly targetPort: number;
  /**
   * Hold every byte of `direction`, on every connection, present and future: nothing is forwarded
   * and nothing is refused, as a black hole the sender's kernel keeps retransmitting into.
   */
  block(direction: LinkDirection): void;
  /** Forward what was held, in order, then forward as before. */
  unblock(direction: LinkDirection): void;
  isBlocked(direction: LinkDirection): boolean;
  /** Stop listening and destroy every connection (held bytes are dropped). */
  close(): Promise<void>;
}

/** One direction of one proxied connection: what it holds while blocked, and what is on its way under a delay. */
interface Flow {
  readonly to: Socket;
  readonly held: Buffer[];
  readonly delayed: { readonly at: number; readonly chunk: Buffer }[];
  timer?: NodeJS.Timeout;
  /** Its sender is gone: what to do once its last delayed chunk has left. */
  onDrained?: () => void;
}

export async function startLinkProxy(targetPort: number, delays: LinkDelays = {}): Promise<LinkProxy> {
  const blocked: Record<LinkDirection, boolean> = { upstream: false, downstream: false };
  const flows: Record<LinkDirection, Set<Flow>> = { upstream: new Set(), downstream: new Set() };
  const sockets = new Set<Socket>();

  // One timer per flow, for its oldest delayed chunk: chunks leave in the order they were read.
  const drain = (flow: Flow) => {
    flow.timer = undefined;
    const now = performance.now();
    while (flow.delayed.length > 0 && flow.delayed[0]!.at <= now) {
      const { chunk } = flow.delayed.shift()!;
      // Towards a side that is gone: nowhere to go.
      if (flow.to.writable) flow.to.write(chunk);
    }
    if (flow.delayed.length > 0) flow.timer = setTimeout(() => drain(flow), flow.delayed[0]!.at - now);
    else flow.onDrained?.();
  };
  const send = (direction: LinkDirection, flow: Flow, chunk: Buffer): boolean => {
    const delay = delays[direction]?.(chunk) ?? 0;
    // Nothing delayed on its way and no delay now: straight through (a link at loopback speed).
    if (delay <= 0 && flow.delayed.length === 0) return flow.to.write(chunk);
    const last = flow.delayed.at(-1)?.at ?? 0;
    flow.delayed.push({ at: Math.max(performance.now() + delay, last), chunk });
    if (!flow.timer) flow.timer = setTimeout(() => drain(flow), flow.delayed[0]!.at - performance.now());
    return true;
  };
  const forward = (direction: LinkDirection, from: Socket, flow: Flow) => {
    from.on('data', (chunk: Buffer) => {
      if (blocked[direction]) flow.held.push(chunk);
      else if (!send(direction, flow, chunk)) {
        // Back-pressure: stop reading until the slow side drains (the held list stays bounded by blocking only).
        from.pause();
        flow.to.once('drain', () => from.resume());
      }
    });
    flows[direction].add(flow);
  };

  const server = createServer((client) => {
    const target = connect(targetPort, '127.0.0.1');
    const up: Flow = { to: target, held: [], delayed: [] };
    const down: Flow = { to: client, held: [], delayed: [] };
    // Either side closing (or failing, or the target refusing) closes the other and drops what a block
    // held: what a peer's timeout does to a real connection. A half-close is treated as a close.
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      for (const s of [client, target]) {
        s.destroy();
        sockets.delete(s);
      }
      flows.upstream.delete(up);
      flows.downstream.delete(down);
      for (const flow of [up, down]) {
        clearTimeout(flow.timer);
        flow.held.length = 0;
        flow.delayed.length = 0;
      }
    };
    // Bytes a side had sent that are still on their way under a delay arrive after it is gone, as a
    // killed process's sent bytes do (the kernel had them): a Dynomite node's last requests reach its
    // peers. Then the other side is closed, gracefully, so that nothing written to it is lost.
    const gone = (from: Flow) => () => {
      if (ended || from.onDrained) return;
      if (from.delayed.length === 0) return end();
      from.onDrained = () => (from.to.writable ? from.to.end() : end());
    };
    for (const [s, from] of [[client, up], [target, down]] as const) {
      sockets.add(s);
      s.setNoDelay(true);
      for (const event of ['error', 'end', 'close']) s.on(event, gone(from));
    }
    // Bytes written before the target connects are queued by the socket, in order.
    forward('upstream', client, up);
    forward('downstream', target, down);
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });

  return {
    port,
    targetPort,
    block(direction) {
      blocked[direction] = true;
    },
    unblock(direction) {
      blocked[direction] = false;
      for (const flow of flows[direction]) {
        for (const chunk of flow.held.splice(0)) send(direction, flow, chunk);
      }
    },
    isBlocked: (direction) => blocked[direction],
    close() {
      for (const set of Object.values(flows)) for (const flow of set) clearTimeout(flow.timer);
      for (const s of sockets) s.destroy();
      sockets.clear();
      flows.upstream.clear();
      flows.downstream.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
