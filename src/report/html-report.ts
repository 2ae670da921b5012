import type { CheckReport } from '../model/checker.js';
import type { HistoryOp } from '../model/history.js';
import { PROPERTIES, PROPERTY_NAMES, VIOLATION_KINDS, worstFirst } from '../model/properties.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES, faultBands, kindsOf, type Band } from '../sim/faults/index.js';
import { nodeName } from '../sim/topology/node-name.js';
import type { Fault, SimConfig } from '../sim/run/config.js';
import { relativeTimes } from '../model/relative-times.js';
import { seriesOf, type Series } from './series.js';

interface ReportInput {
  readonly title: string;
  /** The simulated run's configuration; absent for a judged history (no store lanes, no simulated faults). */
  readonly config?: SimConfig;
  /** The line under the title (default: the configuration's). */
  readonly summary?: string;
  readonly history: readonly HistoryOp[];
  readonly faults: readonly { readonly t: number; readonly fault: Fault }[];
  /** Fault bands drawn as they are (a judged history's fault lines); absent: drawn from `faults`. */
  readonly bands?: readonly Band[];
  readonly report: CheckReport;
  readonly start: number;
  readonly livenessStart: number;
  readonly end: number;
  readonly traceHash?: string;
}

/** Each fault family's band colour, for every kind it draws. */
export function bandCss(): string {
  return FAULT_FAMILY_NAMES.map((f) => `  ${kindsOf(f).map((k) => `.band-${k}`).join(', ')} { background: ${FAULT_FAMILIES[f].bandColour}; }`).join('\n');
}

/** Lanes top to bottom: producers, consumers (incl. replacements), then the store's nodes. */
function lanes(input: ReportInput): string[] {
  const actors = new Set<string>();
  for (const e of input.history) actors.add(e.process);
  const producers = [...actors].filter((a) => a.startsWith('producer')).sort();
  const consumers = [...actors].filter((a) => !a.startsWith('producer')).sort();
  for (const { fault } of input.faults) {
    if ('actor' in fault && !actors.has(fault.actor)) consumers.push(fault.actor);
  }
  const t = input.config?.topology;
  const nodes = t ? t.zones.map((z) => nodeName(t.kind, t.zones, z)) : [];
  return [...producers, ...consumers, ...nodes];
}

/** Escapes text for HTML and for a JSON island inside <script>. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
function jsonIsland(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * Message lives drawn at most: beyond this the page draws every message in a violation and an even
 * sample of the others (the plots and the verdicts still count every operation), so that a
 * 100,000-message run gives a page a browser opens in seconds.
 */
export const MAX_DRAWN_MESSAGES = 10_000;

/** Violation cards listed at most (the header counts every finding; the rest are summed up below the list). */
const MAX_VIOLATION_CARDS = 2_000;

/** One operation as the page draws it: who (its lane) and when it returned. */
export interface PageOp {
  readonly type: HistoryOp['type'];
  readonly id: string;
  readonly actor: string;
  readonly t: number;
  readonly ok: boolean;
  readonly leaseUntil?: number;
}

/** An operation as the page draws it; `lane` names its process's lane. */
export function pageOp(e: Exclude<HistoryOp, { type: 'pop' }>, lane: string = e.process): PageOp {
  return { type: e.type, id: e.id, actor: lane, t: e.completedAt, ok: e.outcome === 'ok', ...(e.type === 'deliver' ? { leaseUntil: e.leaseUntil } : {}) };
}

/** What the page shows, however it was gathered (a run in memory, or a history read as a stream). */
export interface ReportPage {
  readonly title: string;
  /** The line under the title, as HTML (escaped). */
  readonly summaryHtml: string;
  readonly traceHash?: string;
  readonly report: CheckReport;
  readonly start: number;
  readonly livenessStart: number;
  readonly end: number;
  readonly lanes: readonly string[];
  readonly bands: readonly Band[];
  /** The drawn messages' operations. */
  readonly history: readonly PageOp[];
  readonly drawn: { readonly shown: number; readonly total: number };
  readonly series: Series;
}

/** The ids drawn: all of them up to the limit, else those in a violation plus every k-th other. */
function drawnIds(history: readonly HistoryOp[], violating: ReadonlySet<string>, limit: number): { ids: Set<string> | null; total: number } {
  const all = new Set<string>();
  for (const o of history) if (o.type !== 'pop') all.add(o.id);
  if (all.size <= limit) return { ids: null, total: all.size };
  const others = [...all].filter((id) => !violating.has(id));
  const room = Math.max(0, limit - violating.size);
  const step = others.length / Math.max(1, room);
  const ids = new Set([...all].filter((id) => violating.has(id)));
  for (let i = 0; i < room && Math.floor(i * step) < others.length; i++) ids.add(others[Math.floor(i * step)]!);
  return { ids, total: all.size };
}

/** A run held in memory (a simulation, a trace) as a page. */
function pageOf(input: ReportInput): ReportPage {
  const violations = input.report.violations.filter((v) => VIOLATION_KINDS[v.kind].breaks !== null);
  const drawn = drawnIds(input.history, new Set(violations.map((v) => v.id)), MAX_DRAWN_MESSAGES);
  const c = input.config;
  return {
    title: input.title,
    summaryHtml: input.summary !== undefined || !c ? escapeHtml(input.summary ?? '') : `seed ${escapeHtml(c.seed)} · ${c.topology.kind} [${c.topology.zones.join(', ')}] · quorum ${c.topology.quorumConsistency} · mode ${c.queue.mode}${c.queue.serverTime ? ' + server time' : ''} · lease ${c.queue.unackTimeoutMs} ms · ${input.faults.length} fault event(s)`,
    ...(input.traceHash !== undefined ? { traceHash: input.traceHash } : {}),
    report: input.report,
    start: input.start,
    livenessStart: input.livenessStart,
    end: input.end,
    lanes: lanes(input),
    bands: input.bands ?? (input.config ? faultBands(input.faults, input.config, input.livenessStart, input.end) : []),
    // The page draws ops by who and when they returned; an ack of any outcome ends a hold (docs/CHECKER.md §2.1).
    // Pops are drawn through the deliveries they returned: every pop call would only crowd the page.
    history: input.history.filter((e) => e.type !== 'pop' && (drawn.ids === null || drawn.ids.has(e.id))).map((e) => pageOp(e as Exclude<HistoryOp, { type: 'pop' }>)),
    drawn: { shown: drawn.ids?.size ?? drawn.total, total: drawn.total },
    series: seriesOf(input.history, input.start, input.end),
  };
}

/**
 * One self-contained HTML file (no network): a space-time diagram on virtual time — a lane per
 * producer, consumer and store node; each message's life drawn from push to its deliveries, each
 * delivery held until ack or lease end; faults as bands; every checker violation listed beside the
 * picture, highlighted, and focusable by a click. Zoom (wheel, buttons), pan (drag), filter by id.
 * Drawn on a canvas so that 10,000-message runs stay usable.
 */
export function renderHtmlReport(input: ReportInput): string {
  return [...htmlReportPieces(pageOf(input))].join('');
}

/** The page's JSON, in pieces: the drawn operations a thousand at a time, never one string of them all. */
function* dataPieces(data: Record<string, unknown>, history: readonly PageOp[]): Generator<string> {
  const head = jsonIsland(data);
  yield `${head.slice(0, -1)},"history":[`;
  for (let i = 0; i < history.length; i += 1_000) yield `${i > 0 ? ',' : ''}${history.slice(i, i + 1_000).map(jsonIsland).join(',')}`;
  yield ']}';
}

/** The page of renderHtmlReport, in pieces to write one after the other (a large page is never one string). */
export function* htmlReportPieces(page: ReportPage): Generator<string> {
  const input = page;
  // Cards worst first (a run that lost messages shows its losses before its late deliveries).
  const allViolations = page.report.violations.filter((v) => VIOLATION_KINDS[v.kind].breaks !== null).sort(worstFirst);
  const data = {
    title: page.title,
    start: page.start,
    livenessStart: page.livenessStart,
    end: page.end,
    lanes: page.lanes,
    bands: page.bands,
    drawn: page.drawn,
    series: page.series,
    violations: allViolations.slice(0, MAX_VIOLATION_CARDS).map((v) => ({ ...v, actors: v.processes, detail: relativeTimes(v.detail, page.start) })),
    violationsNotListed: Math.max(0, allViolations.length - MAX_VIOLATION_CARDS),
    duplicates: page.report.counts.duplicate,
  };
  const r = page.report;
  // As the CLI's verdict line: a property nothing in the run could have broken is no evidence either way.
  const verdict = (name: string, held: boolean, exercised: boolean) =>
    `<span class="verdict ${held ? (exercised ? 'held' : 'unexercised') : 'broken'}">${name}: ${held ? (exercised ? 'held' : 'not exercised') : 'VIOLATED'}</span>`;
  const summary = page.summaryHtml;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dynoq · ${escapeHtml(input.title)}</title>
<style>
  body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fafbfc; }
  header { padding: 10px 16px; border-bottom: 1px solid #dde1e7; background: #fff; }
  h1 { font-size: 16px; margin: 0 0 4px; }
  .verdict { display: inline-block; margin-right: 10px; padding: 1px 8px; border-radius: 10px; font-weight: 600; }
  .held { background: #e3f6e8; color: #17622f; } .broken { background: #fde7e7; color: #9b1c1c; } .unexercised { background: #eef0f3; color: #495057; }
  main { display: flex; gap: 0; height: calc(100vh - 96px); }
  #left { flex: 1; display: flex; flex-direction: column; min-width: 0; }
  #controls { padding: 6px 16px; display: flex; gap: 8px; align-items: center; border-bottom: 1px solid #eef0f3; }
  #controls input { width: 200px; padding: 3px 6px; }
  #timeline { position: relative; flex: 1; overflow-y: auto; overflow-x: hidden; }
  #axis { position: relative; height: 30px; margin-left: 120px; border-bottom: 1px solid #dde1e7; font-size: 11px; color: #495057; }
  #axis .tick { position: absolute; top: 2px; transform: translateX(-50%); white-space: nowrap; }
  #axis .tick::after { content: ''; position: absolute; left: 50%; top: 14px; height: 6px; border-left: 1px solid #868e96; }
  #axis-caption { position: absolute; right: 6px; bottom: 1px; font-size: 10px; color: #6b7280; }
  #plots { border-top: 1px solid #dde1e7; background: #fff; }
  .plot { display: flex; height: 64px; border-bottom: 1px solid #f0f2f5; }
  .plot-label { width: 120px; flex: none; font-size: 11px; padding: 4px 8px; box-sizing: border-box; }
  .plot-label .ymax { display: block; color: #6b7280; }
  .plot canvas { flex: 1; min-width: 0; height: 64px; cursor: default; }
  #labels { position: absolute; left: 0; top: 0; width: 120px; }
  .lane-label { height: 28px; line-height: 28px; padding-left: 8px; font-size: 12px; white-space: nowrap; overflow: hidden; border-bottom: 1px solid #f0f2f5; }
  #plot { position: absolute; left: 120px; right: 0; top: 0; }
  canvas { display: block; cursor: grab; }
  .fault-band { position: absolute; opacity: .28; pointer-events: auto; font-size: 10px; overflow: hidden; white-space: nowrap; color: #000; }
  .fault-band span { opacity: 1; position: relative; left: 2px; }
${bandCss()}
  aside { width: 380px; border-left: 1px solid #dde1e7; overflow-y: auto; background: #fff; }
  aside h2 { font-size: 13px; margin: 10px 12px 4px; }
  .violation { margin: 4px 8px; padding: 6px 8px; border-radius: 4px; border-left: 4px solid #d13438; background: #fff5f5; cursor: pointer; }
  .violation:hover, .violation.active { background: #fde2e2; }
  .violation .kind { font-weight: 600; } .muted { color: #6b7280; }
  #legend span { margin-right: 10px; } .sw { display: inline-block; width: 10px; height: 10px; vertical-align: middle; margin-right: 3px; }
</style>
</head>
<body>
<header>
  <h1>${escapeHtml(input.title)}</h1>
  <div class="muted">${summary}${input.traceHash ? ` · trace ${input.traceHash.slice(0, 16)}…` : ''}</div>
  <div>${PROPERTY_NAMES.map((p) => verdict(PROPERTIES[p].label, r.properties[p], r.exercised[p])).join('')}
  <span class="muted">pushed ${r.pushed} · delivered ${r.delivered} · acked ${r.acked} · duplicates ${r.counts.duplicate} · p50 ${r.latency.p50.toFixed(0)} ms · p99 ${r.latency.p99.toFixed(0)} ms</span></div>
</header>
<main>
  <div id="left">
    <div id="controls">
      <label>message id <input id="filter" placeholder="all messages" autocomplete="off"></label>
      <button id="zoom-in">+</button><button id="zoom-out">−</button><button id="reset">reset</button>
      <span class="muted">focused: <b id="focused-id">none</b></span>
      <span id="legend" class="muted"><span><i class="sw" style="background:#2f9e44"></i>held until ack</span><span><i class="sw" style="background:#f08c00"></i>lease ran out</span><span><i class="sw" style="background:#e03131"></i>in a violation</span><span><i class="sw" style="background:#495057"></i>push</span></span>
    </div>
    <div id="axis" aria-label="time axis"><span id="axis-caption">time since the start of the run</span></div>
    <div id="timeline"><div id="labels"></div><div id="plot"><canvas id="canvas"></canvas></div></div>
    <div id="plots">
      <div class="plot" data-series="deliveriesPerSecond"><div class="plot-label">deliveries / s<span class="ymax"></span></div><canvas></canvas></div>
      <div class="plot" data-series="latencyMs"><div class="plot-label">delivery latency (ms, mean)<span class="ymax"></span></div><canvas></canvas></div>
      <div class="plot" data-series="holdsInFlight"><div class="plot-label">holds in flight<span class="ymax"></span></div><canvas></canvas></div>
    </div>
  </div>
  <aside>
    <h2>Violations (${allViolations.length})</h2>
    <div id="violations"></div>
    ${data.violationsNotListed > 0 ? `<p class="muted" id="not-listed" style="margin:8px 12px">And ${data.violationsNotListed} more violation(s), not listed: the header counts them all.</p>` : ''}
    ${data.drawn.shown < data.drawn.total ? `<p class="muted" id="sampled" style="margin:8px 12px">Drawing ${data.drawn.shown} of ${data.drawn.total} messages: every message in a violation and an even sample of the rest. Verdicts and plots count all of them.</p>` : ''}
    <p class="muted" style="margin:8px 12px">Duplicates (allowed by at-least-once): ${data.duplicates}. Times are ms from the start of the run, on the true clock; the liveness phase starts at ${(input.livenessStart - input.start).toFixed(0)} ms.</p>
  </aside>
</main>
<script type="application/json" id="data">`;
  yield* dataPieces(data, page.history);
  yield `</script>
<script>
(() => {
  const D = JSON.parse(document.getElementById('data').textContent);
  const LANE = 28;
  const laneIndex = new Map(D.lanes.map((l, i) => [l, i]));
  const labels = document.getElementById('labels');
  for (const l of D.lanes) { const d = document.createElement('div'); d.className = 'lane-label'; d.textContent = l; d.dataset.lane = l; labels.appendChild(d); }
  const plot = document.getElementById('plot');
  const canvas = document.getElementById('canvas');
  const ctx = canvas.getContext('2d');
  const height = D.lanes.length * LANE;
  plot.style.height = height + 'px';

  // Message lives: push, then each delivery held until its holder's ack or its lease end.
  const byId = new Map();
  for (const e of D.history) { if (!byId.has(e.id)) byId.set(e.id, []); byId.get(e.id).push(e); }
  const bad = new Set(D.violations.map((v) => v.id));
  const lives = [];
  for (const [id, events] of byId) {
    events.sort((a, b) => a.t - b.t);
    const pushes = events.filter((e) => e.type === 'push' || e.type === 'ensure');
    const deliveries = events.filter((e) => e.type === 'deliver').map((d) => {
      const ack = events.find((e) => (e.type === 'ack' || e.type === 'release') && e.actor === d.actor && e.t >= d.t);
      const until = ack ? Math.min(ack.t, Math.max(d.leaseUntil, ack.t)) : d.leaseUntil;
      return { actor: d.actor, from: d.t, to: until, acked: !!ack && ack.ok };
    });
    lives.push({ id, pushes, deliveries, bad: bad.has(id) });
  }

  let t0 = D.start, t1 = D.end, focus = null;
  const filterInput = document.getElementById('filter');
  const x = (t, w) => ((t - t0) / (t1 - t0)) * w;

  function drawBands(w) {
    for (const el of plot.querySelectorAll('.fault-band')) el.remove();
    for (const b of D.bands) {
      const left = x(b.from, w), right = x(b.to, w);
      if (right < 0 || left > w) continue;
      const el = document.createElement('div');
      el.className = 'fault-band band-' + b.kind;
      el.title = b.label;
      el.dataset.kind = b.kind;
      const lane = b.lane === null ? null : laneIndex.get(b.lane);
      el.style.left = Math.max(0, left) + 'px';
      el.style.width = Math.max(3, Math.min(w, right) - Math.max(0, left)) + 'px';
      el.style.top = (lane == null ? 0 : lane * LANE) + 'px';
      el.style.height = (lane == null ? height : LANE) + 'px';
      const s = document.createElement('span'); s.textContent = b.label; el.appendChild(s);
      plot.appendChild(el);
    }
  }

  function draw() {
    const w = plot.clientWidth;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = w * dpr; canvas.height = height * dpr;
    canvas.style.width = w + 'px'; canvas.style.height = height + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, height);
    for (let i = 0; i < D.lanes.length; i++) { ctx.fillStyle = i % 2 ? '#f6f7f9' : '#ffffff'; ctx.fillRect(0, i * LANE, w, LANE); }
    const lx = x(D.livenessStart, w);
    ctx.strokeStyle = '#868e96'; ctx.setLineDash([4, 4]); ctx.beginPath(); ctx.moveTo(lx, 0); ctx.lineTo(lx, height); ctx.stroke(); ctx.setLineDash([]);
    const wanted = filterInput.value.trim();
    const shown = wanted ? lives.filter((l) => l.id === wanted || l.id.startsWith(wanted)) : lives;
    const connect = shown.length <= 2000;
    for (const life of shown) {
      const highlight = life.bad || (focus && life.id === focus);
      for (const p of life.pushes) {
        const lane = laneIndex.get(p.actor); if (lane === undefined) continue;
        ctx.fillStyle = highlight ? '#e03131' : '#495057';
        ctx.fillRect(x(p.t, w) - 1, lane * LANE + 4, 2, LANE - 8);
      }
      let prev = life.pushes[0];
      for (const d of life.deliveries) {
        const lane = laneIndex.get(d.actor); if (lane === undefined) continue;
        const a = x(d.from, w), b = Math.max(a + 1, x(d.to, w));
        ctx.fillStyle = highlight ? '#e03131' : d.acked ? '#2f9e44' : '#f08c00';
        ctx.globalAlpha = highlight || !focus ? 0.85 : 0.25;
        ctx.fillRect(a, lane * LANE + 8, b - a, LANE - 16);
        if (connect && prev) {
          const pl = laneIndex.get(prev.actor);
          if (pl !== undefined) {
            ctx.strokeStyle = highlight ? '#e03131' : '#adb5bd'; ctx.lineWidth = highlight ? 1.5 : 0.5;
            ctx.beginPath(); ctx.moveTo(x(prev.t, w), pl * LANE + LANE / 2); ctx.lineTo(a, lane * LANE + LANE / 2); ctx.stroke();
          }
        }
        prev = { actor: d.actor, t: d.to };
        ctx.globalAlpha = 1;
      }
    }
    drawBands(w);
    drawAxis(w);
    drawPlots();
  }

  // A labelled time axis: round steps (1, 2, 5 × 10^k ms) over the shown span, as ms or s from the start.
  function niceStep(span, n) {
    const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
  }
  function label(ms, step) {
    return step >= 1000 ? (ms / 1000).toFixed(step % 1000 === 0 ? 0 : 1) + ' s' : Math.round(ms) + ' ms';
  }
  function drawAxis(w) {
    const axis = document.getElementById('axis');
    for (const el of axis.querySelectorAll('.tick')) el.remove();
    const step = niceStep(t1 - t0, Math.max(2, Math.floor(w / 90)));
    for (let v = Math.ceil((t0 - D.start) / step) * step; D.start + v <= t1; v += step) {
      const el = document.createElement('span');
      el.className = 'tick'; el.style.left = x(D.start + v, w) + 'px'; el.textContent = label(v, step);
      axis.appendChild(el);
    }
  }

  // Small plots over time, from bins over the whole run (computed from every operation), drawn for the shown span.
  function drawPlots() {
    const S = D.series;
    for (const row of document.querySelectorAll('.plot')) {
      const values = S[row.dataset.series];
      const c = row.querySelector('canvas');
      const w = c.clientWidth, h = c.clientHeight, dpr = window.devicePixelRatio || 1;
      c.width = w * dpr; c.height = h * dpr;
      const g = c.getContext('2d'); g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, w, h);
      for (const b of D.bands) {
        g.fillStyle = 'rgba(209,52,56,.15)';
        g.fillRect(x(b.from, w), 0, Math.max(2, x(b.to, w) - x(b.from, w)), h);
      }
      const shown = [];
      for (let i = 0; i < values.length; i++) {
        const a = S.from + i * S.binMs, b = a + S.binMs;
        if (b >= t0 && a <= t1 && values[i] !== null) shown.push([a, b, values[i]]);
      }
      const max = shown.reduce((m, v) => Math.max(m, v[2]), 0);
      row.querySelector('.ymax').textContent = 'max ' + (max >= 100 ? Math.round(max) : max.toFixed(1));
      row.dataset.max = String(max); row.dataset.points = String(shown.length);
      g.fillStyle = '#4c6ef5';
      for (const [a, b, v] of shown) {
        const bh = max > 0 ? (v / max) * (h - 6) : 0;
        g.fillRect(x(a, w), h - bh, Math.max(1, x(b, w) - x(a, w)), bh);
      }
    }
  }

  function focusOn(id) {
    focus = id;
    filterInput.value = id;
    document.getElementById('focused-id').textContent = id;
    const life = lives.find((l) => l.id === id);
    if (life) {
      const ts = [...life.pushes.map((p) => p.t), ...life.deliveries.flatMap((d) => [d.from, d.to])];
      const lo = Math.min(...ts), hi = Math.max(...ts), pad = Math.max(50, (hi - lo) * 0.2);
      t0 = Math.max(D.start, lo - pad); t1 = Math.min(D.end, hi + pad);
    }
    for (const el of document.querySelectorAll('.violation')) el.classList.toggle('active', el.dataset.id === id);
    draw();
  }

  const list = document.getElementById('violations');
  if (D.violations.length === 0) list.innerHTML = '<p class="muted" style="margin:4px 12px">No violation in this run.</p>';
  for (const v of D.violations) {
    const el = document.createElement('div');
    el.className = 'violation'; el.dataset.id = v.id; el.dataset.kind = v.kind;
    el.innerHTML = '<span class="kind"></span> <b class="vid"></b> <span class="muted at"></span><div class="detail"></div>';
    el.querySelector('.kind').textContent = v.kind;
    el.querySelector('.vid').textContent = v.id;
    el.querySelector('.at').textContent = 't+' + Math.round(v.t - D.start) + ' ms · ' + v.actors.join(', ');
    el.querySelector('.detail').textContent = v.detail;
    el.addEventListener('click', () => focusOn(v.id));
    list.appendChild(el);
  }

  function zoom(factor, at) {
    const mid = at ?? (t0 + t1) / 2;
    const span = Math.min(D.end - D.start, Math.max(5, (t1 - t0) * factor));
    t0 = Math.max(D.start, mid - (mid - t0) * (span / (t1 - t0)));
    t1 = Math.min(D.end, t0 + span);
    draw();
  }
  document.getElementById('zoom-in').onclick = () => zoom(0.5);
  document.getElementById('zoom-out').onclick = () => zoom(2);
  document.getElementById('reset').onclick = () => { t0 = D.start; t1 = D.end; focus = null; filterInput.value = ''; document.getElementById('focused-id').textContent = 'none'; draw(); };
  canvas.addEventListener('wheel', (ev) => { ev.preventDefault(); const w = plot.clientWidth; zoom(ev.deltaY < 0 ? 0.8 : 1.25, t0 + (ev.offsetX / w) * (t1 - t0)); }, { passive: false });
  let drag = null;
  canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, t0, t1 }; });
  window.addEventListener('mouseup', () => { drag = null; });
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const dt = ((ev.clientX - drag.x) / plot.clientWidth) * (drag.t1 - drag.t0);
    const span = drag.t1 - drag.t0;
    t0 = Math.min(Math.max(D.start, drag.t0 - dt), D.end - span); t1 = t0 + span; draw();
  });
  filterInput.addEventListener('input', () => { focus = filterInput.value.trim() || null; document.getElementById('focused-id').textContent = focus || 'none'; draw(); });
  window.addEventListener('resize', draw);
  draw();
  window.__dynoqReady = true;
})();
</script>
</body>
</html>
`;
}
