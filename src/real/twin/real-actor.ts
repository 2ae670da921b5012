import type { Redis } from 'ioredis';
import type { BaseQueue } from '../../queue/base-queue.js';
import { CallProbe, repliesAreVotes } from '../../sim/store/call-probe.js';
import type { SimConfig } from '../../sim/run/config.js';
import { actorQueues } from '../../sim/workloads/actor-queues.js';
import type { WorkloadActor } from '../../sim/workloads/index.js';
import { IoredisStore } from '../../store/ioredis-store.js';
import type { Store } from '../../store/store.js';
import type { ConnectionRole, RealCluster } from '../cluster.js';
import { probingStore } from './probing-store.js';
import { OffsetClock, StoppableTimers } from './real-time.js';

/**
 * A client process of a real twin, in this Node process: the real queue on its own ioredis
 * connections (the ones `connect()` builds), its own clock (the system clock plus a fault's offset)
 * and timers. As in a simulated run, the un-ack reaper runs on a second queue instance with its own
 * connections. A crash stops its timers and closes its connections: the server sees the client go,
 * its leases stay in the store.
 */
export class RealActor implements WorkloadActor {
  readonly clock = new OffsetClock();
  readonly timers = new StoppableTimers();
  readonly probe = new CallProbe();
  readonly queue: BaseQueue;
  readonly shards = new Map<string, string>();
  readonly calls = new Map<string, number>();
  private readonly clients: Redis[] = [];
  private readonly reaper: BaseQueue | null;
  /** Requests of the recorded calls to send before a reset (resetConnectionAt); 0: none armed. */
  private resetLeft = 0;
  crashed = false;
  onCrash: (() => void) | null = null;

  constructor(
    readonly name: string,
    readonly zone: string,
    config: SimConfig,
    cluster: RealCluster,
    runsReaper: boolean,
    onReaperError: (err: unknown) => void,
  ) {
    const dynomite = cluster.kind === 'dynomite';
    const store = (role: ConnectionRole, probe?: CallProbe): Store => {
      const client = cluster.client(zone, role, { failover: config.network.clientFailover });
      client.on('error', () => undefined);
      this.clients.push(client);
      const s = this.pausable(new IoredisStore(client, { dynomite }));
      // The queue holds settled messages back only with more than one rack (base-queue reads racks).
      const racked: Store = dynomite ? Object.assign(Object.create(s) as Store, { racks: cluster.zones.length }) : s;
      if (!probe) return racked;
      const probing = probingStore(racked, probe, repliesAreVotes(racked), () => client.status === 'ready');
      return role === 'quorum' ? this.resettable(probing, client) : probing;
    };
    const queues = actorQueues({
      config,
      zone,
      clock: this.clock,
      timers: this.timers,
      stores: (recorded) => [store('quorum', recorded ? this.probe : undefined), store('nonQuorum', recorded ? this.probe : undefined)],
      shards: this.shards,
      calls: this.calls,
      runsReaper,
      onReaperError,
    });
    this.queue = queues.queue;
    this.reaper = queues.reaper;
  }

  resetConnectionAt(nth: number): void {
    this.resetLeft = nth;
  }

  /**
   * The store, counting its requests for resetConnectionAt: right after the armed one is handed to
   * the socket, the socket is destroyed, as a server's CLIENT KILL or a proxy's reset does to a
   * request in flight: its reply is lost, ioredis reconnects and (with connect()'s settings) re-sends
   * nothing, so it fails at the command timeout (measured against CLIENT KILL of a blocked request:
   * the same 5 s timeout). `disconnect(true)` would close gracefully and the reply still arrives.
   */
  private resettable(store: Store, client: Redis): Store {
    return new Proxy(store, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const reply = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (this.resetLeft > 0 && --this.resetLeft === 0) (client as unknown as { stream?: { destroy(): void } }).stream?.destroy();
          return reply;
        };
      },
    });
  }

  /**
   * The store, its replies held while this client is paused: a paused process hears nothing until it
   * resumes (what it sent is on the wire and runs; the answer waits), as a simulated actor's do.
   */
  private pausable(store: Store): Store {
    const timers = this.timers;
    return new Proxy(store, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const reply: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(reply instanceof Promise)) return reply;
          return reply.then(
            (r: unknown) => timers.afterPause().then(() => r),
            (err: unknown) => timers.afterPause().then(() => Promise.reject(err)),
          );
        };
      },
    });
  }

  /** A client-pause fault: nothing of this client runs until `untilMs` (system time) or resume(). */
  pause(untilMs: number): void {
    this.timers.pausedUntil = Math.max(this.timers.pausedUntil, untilMs);
  }

  get runsReaper(): boolean {
    return this.reaper !== null;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }

  /**
   * Moves every connection of this client to another node (a client-failover fault): the next connect
   * goes there (ioredis reads host and port from its options at each connect), what was in flight on
   * the old connection fails as on any reconnect.
   */
  failOver(address: { readonly host: string; readonly port: number }): void {
    for (const c of this.clients) {
      if (c.options.port === address.port && c.options.host === address.host) continue;
      c.options.host = address.host;
      c.options.port = address.port;
      c.disconnect(true);
    }
  }

  crash(): void {
    if (this.crashed) return;
    this.crashed = true;
    this.timers.stop();
    for (const c of this.clients) c.disconnect();
    this.onCrash?.();
  }
}
