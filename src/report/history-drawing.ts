import type { CheckReport } from '../model/checker.js';
import type { FaultSpan } from '../model/history-file.js';
import type { HistoryOp, PopOp, RunPhases } from '../model/history.js';
import { hashIdString } from '../model/line-scan.js';
import type { StreamObserver } from '../model/stream-judge.js';
import type { Band } from '../sim/faults/index.js';
import { MAX_DRAWN_MESSAGES, pageOp, type PageOp, type ReportPage } from './html-report.js';
import { SeriesBins } from './series.js';

/** Lanes drawn at most: beyond this, processes next to each other in lane order share a lane (its label names them). */
const MAX_LANES = 100;

type MessageOp = Exclude<HistoryOp, { type: 'pop' }>;

/** Producers first, then the others, each by name (as a simulated run's lanes). */
function laneOrder(a: string, b: string): number {
  const pa = a.startsWith('producer');
  const pb = b.startsWith('producer');
  return pa !== pb ? (pa ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The picture of a history read as a stream (a StreamObserver of judgeStream): every process gets a
 * lane, the plots add up every message, and at most MAX_DRAWN_MESSAGES message lives are kept —
 * those in a violation first, then a sample chosen by a hash of the id (so that no round-robin
 * assignment of messages to processes lines up with it), then, for any process the sample missed,
 * the first message it took part in. Memory: the drawn messages, one message per process not yet
 * drawn, the process names and the plots' bins.
 */
export class HistoryDrawing implements StreamObserver {
  private series: SeriesBins | undefined;
  private phases: RunPhases | undefined;
  private first = 0;
  /** Share of the messages the sample draws (of 2³²: compared with the id's hash). */
  private threshold = 0;
  private readonly processes = new Set<string>();
  private readonly drawn = new Map<string, PageOp[]>();
  private readonly covered = new Set<string>();
  private readonly firstOf = new Map<string, { id: string; ops: PageOp[] }>();
  private messages = 0;
  operations = 0;

  get processCount(): number {
    return this.processes.size;
  }

  begin(phases: RunPhases, start: number, messages: number): void {
    this.phases = phases;
    this.first = Math.min(start, phases.livenessStart);
    this.series = new SeriesBins(this.first, phases.end);
    this.threshold = Math.floor(Math.min(1, MAX_DRAWN_MESSAGES / Math.max(1, messages)) * 0x1_0000_0000);
  }

  pop(op: PopOp): void {
    this.operations++;
    this.processes.add(op.process);
  }

  message(id: string, ops: readonly HistoryOp[], violated: boolean): void {
    this.messages++;
    this.operations += ops.length;
    this.series!.add(ops);
    for (const o of ops) this.processes.add(o.process);
    const room = this.drawn.size < MAX_DRAWN_MESSAGES;
    if (room && (violated || hashIdString(id) >>> 0 < this.threshold)) return this.draw(id, ops);
    // A process no drawn message has reached yet keeps its first message, in case the sample never reaches it.
    for (const o of ops) if (!this.covered.has(o.process) && !this.firstOf.has(o.process)) this.firstOf.set(o.process, { id, ops: ops.map((x) => pageOp(x as MessageOp)) });
  }

  /** A message found violating only at the end (the per-shard judgements): drawn too, while there is room. */
  addViolating(id: string, ops: readonly HistoryOp[]): void {
    if (!this.drawn.has(id) && this.drawn.size < MAX_DRAWN_MESSAGES) this.draw(id, ops);
  }

  isDrawn(id: string): boolean {
    return this.drawn.has(id);
  }

  private draw(id: string, ops: readonly HistoryOp[]): void {
    this.drawn.set(id, ops.map((o) => pageOp(o as MessageOp)));
    for (const o of ops) {
      this.covered.add(o.process);
      this.firstOf.delete(o.process);
    }
  }

  /** The page, once the judge is done. */
  page(page: { title: string; summaryHtml: string; traceHash?: string; report: CheckReport; faults: readonly FaultSpan[] }): ReportPage {
    const phases = this.phases!;
    for (const [process, m] of this.firstOf) {
      if (this.covered.has(process) || this.drawn.has(m.id)) continue;
      this.drawn.set(m.id, m.ops);
      for (const o of m.ops) this.covered.add(o.actor);
    }
    // Lanes: one per process, or runs of neighbouring processes sharing one when there are too many.
    const sorted = [...this.processes].sort(laneOrder);
    const laneOf = new Map<string, string>();
    const perLane = Math.ceil(sorted.length / MAX_LANES);
    const lanes: string[] = [];
    for (let i = 0; i < sorted.length; i += perLane) {
      const group = sorted.slice(i, i + perLane);
      const lane = group.length === 1 ? group[0]! : `${group[0]} … ${group[group.length - 1]} (${group.length})`;
      lanes.push(lane);
      for (const p of group) laneOf.set(p, lane);
    }
    const history: PageOp[] = [];
    for (const ops of this.drawn.values()) for (const o of ops) history.push(laneOf.get(o.actor) === o.actor ? o : { ...o, actor: laneOf.get(o.actor)! });
    const bands: Band[] = page.faults.map((f) => ({
      kind: f.kind,
      lane: f.target !== undefined ? (laneOf.get(f.target) ?? null) : null,
      from: f.from,
      to: Number.isFinite(f.to) ? f.to : phases.end,
      label: `${f.kind}${f.target !== undefined ? ` ${f.target}` : ''}`,
    }));
    return {
      title: page.title,
      summaryHtml: page.summaryHtml,
      ...(page.traceHash !== undefined ? { traceHash: page.traceHash } : {}),
      report: page.report,
      start: this.first,
      livenessStart: phases.livenessStart,
      end: phases.end,
      lanes,
      bands,
      history,
      drawn: { shown: this.drawn.size, total: this.messages },
      series: this.series!.done(),
    };
  }
}
