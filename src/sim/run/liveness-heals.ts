import type { Kernel } from '../kernel/kernel.js';
import type { Trace } from '../kernel/trace.js';
import type { Topology } from '../store/topology.js';
import { DynomiteTopology } from '../topology/dynomite.js';
import type { SimConfig } from './config.js';

type LivenessHeal = NonNullable<SimConfig['phases']['livenessHeals']>[number];

/**
 * The liveness phase's restarts that took time (phases.livenessHeals, a real twin's as they happened):
 * each process is kept down while every other fault heals at the liveness start, and restarted at its
 * own time. Without them every restart is instant, which a real restart on a loaded machine is not.
 */
export function keepDownUntilHealed(kernel: Kernel, trace: Trace, topology: Topology, heals: readonly LivenessHeal[], epoch: number): void {
  for (const h of heals) topology.keptDown.add(`${h.process}:${h.zone}`);
  for (const h of heals) {
    kernel.at(epoch + h.at, () => {
      topology.keptDown.delete(`${h.process}:${h.zone}`);
      const node = topology.nodes.find((n) => n.zone === h.zone)!;
      trace.record({ t: kernel.now, actor: 'nemesis', op: 'liveness-heal', args: h });
      if (h.process === 'backend') {
        if (topology instanceof DynomiteTopology) topology.restartBackend(node);
      } else if (!node.up) {
        topology.restart(node);
        topology.resume();
      }
    });
  }
}
