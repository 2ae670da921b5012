import { PROPERTIES, PROPERTY_NAMES } from '../model/properties.js';
import { decide, PROPERTY_CODES } from '../sim/campaign/decision.js';
import type { GuaranteesData } from '../sim/campaign/guarantees-data.js';
import { cellMark, drawLabel } from '../sim/campaign/guarantees-page.js';
import { optionsText } from '../sim/campaign/setup-facets.js';
import { escapeHtml } from './html-report.js';

/**
 * docs/guarantees.html: the decision matrix and every (configuration, property) cell of the table in
 * one page with no network access: its script sorts the detail table by any column and filters it by
 * topology, mode, fault, property and verdict.
 */

const FILTERS = ['topology', 'mode', 'fault', 'property', 'verdict'] as const;

interface DetailRow {
  readonly configuration: string;
  readonly topology: string;
  readonly mode: string;
  readonly options: string;
  readonly fault: string;
  readonly profile: string;
  readonly property: string;
  readonly verdict: 'held' | 'violated' | 'not exercised';
  readonly violated: number;
  readonly exercised: number;
  readonly rate: number | null;
  readonly high: number;
  readonly affected: string;
  readonly firstSeed: string;
  readonly mechanisms: string;
}

const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)} %`;

function detailRows(data: GuaranteesData): DetailRow[] {
  return data.rows.flatMap((r) =>
    PROPERTY_NAMES.map((p): DetailRow => {
      const c = r.cells[p];
      const verdict = c.violated > 0 ? 'violated' : c.exercised > 0 && r.exposedRuns !== 0 ? 'held' : 'not exercised';
      return {
        configuration: r.name,
        topology: r.facets.topology,
        mode: r.facets.mode,
        options: optionsText(r.facets),
        fault: drawLabel(r.faults),
        profile: r.profile,
        property: PROPERTIES[p].label,
        verdict,
        violated: c.violated,
        exercised: c.exercised,
        rate: c.exercised > 0 ? c.violated / c.exercised : null,
        high: c.interval.high,
        affected: c.violated > 0 ? `${c.affectedMedian} / ${c.affectedMax}` : '',
        firstSeed: c.firstSeed ?? '',
        mechanisms: c.mechanisms
          .map((m) => {
            const advice = data.adviceOf[m.key];
            const link = advice === undefined ? '' : ` <a href="#advice-${advice + 1}">what to do ${advice + 1}</a>`;
            return `<li>${escapeHtml(m.key)}: ${m.runs}/${r.runs} runs, first seed ${escapeHtml(m.firstSeed)}${link}</li>`;
          })
          .join(''),
      };
    }),
  );
}

function matrixHtml(data: GuaranteesData): string {
  const decision = decide(data);
  const head = `<tr><th>topology</th><th>mode</th><th>options</th>${decision.columns.map((d) => `<th>${escapeHtml(drawLabel(d))}</th>`).join('')}</tr>`;
  const body = decision.lines
    .map((l) => {
      const recommended = decision.recommended.includes(l);
      const cells = decision.columns
        .map((d) => {
          const c = l.cells[d];
          const from = c?.inheritedFrom ? ` (the runs of ${c.inheritedFrom}: persistence acts on no fault of this draw)` : '';
          const title = c ? `${c.runs} runs${from}; ${c.violated.map((p) => `${PROPERTIES[p].label} ${c.counts[p].violated}/${c.counts[p].exercised}`).join(', ') || 'nothing violated'}` : 'not measured';
          return `<td class="m-${c ? c.verdict.replace(' ', '-') : 'none'}" title="${escapeHtml(title)}">${escapeHtml(cellMark(c))}</td>`;
        })
        .join('');
      return `<tr data-setup="${escapeHtml(l.setup)}"${recommended ? ' class="recommended"' : ''}><td>${l.facets.topology}</td><td>${l.facets.mode}</td><td>${escapeHtml(optionsText(l.facets))}${recommended ? ' <b>(recommended)</b>' : ''}</td>${cells}</tr>`;
    })
    .join('\n');
  return `<table id="matrix"><thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
}

const COLUMNS: readonly { readonly key: keyof DetailRow; readonly label: string; readonly numeric?: boolean }[] = [
  { key: 'configuration', label: 'configuration' },
  { key: 'topology', label: 'topology' },
  { key: 'mode', label: 'mode' },
  { key: 'options', label: 'options' },
  { key: 'fault', label: 'fault' },
  { key: 'profile', label: 'profile' },
  { key: 'property', label: 'property' },
  { key: 'verdict', label: 'verdict' },
  { key: 'violated', label: 'violated runs', numeric: true },
  { key: 'exercised', label: 'exercised runs', numeric: true },
  { key: 'rate', label: 'rate', numeric: true },
  { key: 'high', label: '95 % upper', numeric: true },
  { key: 'affected', label: 'msgs median / max' },
  { key: 'firstSeed', label: 'first seed' },
  { key: 'mechanisms', label: 'mechanisms' },
];

function detailHtml(rows: readonly DetailRow[]): string {
  const head = COLUMNS.map((c) => `<th data-key="${c.key}"${c.numeric ? ' data-numeric="1"' : ''}>${escapeHtml(c.label)}</th>`).join('');
  const body = rows
    .map((r) => {
      const attrs = `data-topology="${escapeHtml(r.topology)}" data-mode="${escapeHtml(r.mode)}" data-fault="${escapeHtml(r.fault)}" data-property="${escapeHtml(r.property)}" data-verdict="${r.verdict}"`;
      const tds = COLUMNS.map((c) => {
        const v = r[c.key];
        if (c.key === 'mechanisms') return `<td><ul>${v as string}</ul></td>`;
        if (c.key === 'rate' || c.key === 'high') return `<td data-v="${v ?? -1}">${v === null ? '' : pct(v as number)}</td>`;
        return `<td>${escapeHtml(String(v))}</td>`;
      }).join('');
      return `<tr class="v-${r.verdict.replace(' ', '-')}" ${attrs}>${tds}</tr>`;
    })
    .join('\n');
  return `<table id="detail"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function filterHtml(rows: readonly DetailRow[]): string {
  return FILTERS.map((f) => {
    const values = [...new Set(rows.map((r) => r[f]))];
    const options = values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v)}</option>`).join('');
    return `<label>${f} <select id="filter-${f}" data-filter="${f}"><option value="">all</option>${options}</select></label>`;
  }).join('\n');
}

/** Sorting and filtering, in the page (no library, no network). */
const SCRIPT = `
const tbody = document.querySelector('#detail tbody');
const selects = [...document.querySelectorAll('select[data-filter]')];
function applyFilters() {
  let shown = 0;
  for (const tr of tbody.rows) {
    const ok = selects.every((s) => s.value === '' || tr.dataset[s.dataset.filter] === s.value);
    tr.hidden = !ok;
    if (ok) shown++;
  }
  document.getElementById('shown').textContent = String(shown);
}
for (const s of selects) s.addEventListener('change', applyFilters);
let sorted = { key: null, dir: 1 };
for (const th of document.querySelectorAll('#detail th')) {
  th.addEventListener('click', () => {
    const key = th.dataset.key;
    const index = th.cellIndex;
    const numeric = th.dataset.numeric === '1';
    sorted = { key, dir: sorted.key === key ? -sorted.dir : 1 };
    const rows = [...tbody.rows];
    rows.sort((a, b) => {
      const x = a.cells[index].dataset.v ?? a.cells[index].textContent;
      const y = b.cells[index].dataset.v ?? b.cells[index].textContent;
      const d = numeric ? Number(x) - Number(y) : x.localeCompare(y);
      return sorted.dir * d;
    });
    for (const r of rows) tbody.appendChild(r);
    for (const h of document.querySelectorAll('#detail th')) h.removeAttribute('aria-sort');
    th.setAttribute('aria-sort', sorted.dir === 1 ? 'ascending' : 'descending');
  });
}
applyFilters();
window.__dynoqReady = true;
`;

/** The whole page, from the published data alone. */
export function renderGuaranteesHtml(data: GuaranteesData): string {
  const rows = detailRows(data);
  const codes = PROPERTY_NAMES.map((p) => `<b>${PROPERTY_CODES[p]}</b> ${escapeHtml(PROPERTIES[p].label)}`).join(' · ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dynoq · what each set-up guarantees</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; vertical-align: top; }
#detail th { cursor: pointer; background: #f4f4f4; position: sticky; top: 0; }
#detail th[aria-sort="ascending"]::after { content: " ▲"; }
#detail th[aria-sort="descending"]::after { content: " ▼"; }
.m-held, .v-held td:nth-child(8) { background: #e3f4e3; }
.m-violated, .v-violated td:nth-child(8) { background: #fbe3e3; }
.m-not-exercised { background: #f2f2f2; }
tr.recommended td:first-child { border-left: 4px solid #2a7; }
ul { margin: 0; padding-left: 1.2em; }
label { margin-right: 1em; }
</style>
</head>
<body>
<h1>What each set-up guarantees (measured)</h1>
<p>Generated by <code>${escapeHtml(data.command)}</code>${data.timing ? ` (${escapeHtml(data.timing)})` : ''}; ${data.seeds} seeds per configuration. The matrix and the rule behind the recommendation are explained in GUARANTEES.md. Codes: ${codes}.</p>
${matrixHtml(data)}
<h2>Every configuration and property</h2>
<p>${filterHtml(rows)} <span><span id="shown">${rows.length}</span> of ${rows.length} shown</span>. Click a column to sort (again to reverse).</p>
${detailHtml(rows)}
<h2>What to do</h2>
<ol id="advice">${data.advice.map((a, i) => `<li id="advice-${i + 1}">${escapeHtml(a)}</li>`).join('\n')}</ol>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
