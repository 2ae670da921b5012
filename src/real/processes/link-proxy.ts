import { connect, createServer, type Socket } from 'node:net';

/** `upstream`: bytes from the proxy's clients to the target; `downstream`: the target's replies. */
type LinkDirection = 'upstream' | 'downstream';

/**
 * A TCP proxy on 127.0.0.1 (a free port) forwarding every connection to one target port, with each
 * direction blockable on its own: a network link that can be cut one way or both.
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

/** One direction of one proxied connection: what it holds while blocked. */
interface Flow {
  readonly to: Socket;
  readonly held: Buffer[];
}

export async function startLinkProxy(targetPort: number): Promise<LinkProxy> {
  const blocked: Record<LinkDirection, boolean> = { upstream: false, downstream: false };
  const flows: Record<LinkDirection, Set<Flow>> = { upstream: new Set(), downstream: new Set() };
  const sockets = new Set<Socket>();

  const forward = (direction: LinkDirection, from: Socket, flow: Flow) => {
    from.on('data', (chunk: Buffer) => {
      if (blocked[direction]) flow.held.push(chunk);
      else if (!flow.to.write(chunk)) {
        // Back-pressure: stop reading until the slow side drains (the held list stays bounded by blocking only).
        from.pause();
        flow.to.once('drain', () => from.resume());
      }
    });
    flows[direction].add(flow);
  };

  const server = createServer((client) => {
    const target = connect(targetPort, '127.0.0.1');
    const up: Flow = { to: target, held: [] };
    const down: Flow = { to: client, held: [] };
    // Either side closing (or failing, or the target refusing) closes the other and drops what was
    // held: what a peer's timeout does to a real connection. A half-close is treated as a close.
    const end = () => {
      for (const s of [client, target]) {
        s.destroy();
        sockets.delete(s);
      }
      flows.upstream.delete(up);
      flows.downstream.delete(down);
      up.held.length = 0;
      down.held.length = 0;
    };
    for (const s of [client, target]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('error', end);
      s.on('end', end);
      s.on('close', end);
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
        for (const chunk of flow.held.splice(0)) flow.to.write(chunk);
      }
    },
    isBlocked: (direction) => blocked[direction],
    close() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      flows.upstream.clear();
      flows.downstream.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
