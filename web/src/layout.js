// Panel 1, layout and bin-packing: a streaming workload into a partition scheme, then a
// nightly OPTIMIZE (or REORG PURGE) planned by lithify's real planner through the
// simulator (POST /api/simulate). Readouts come straight from the result's `totals`.
import { post, debounce } from './api.js';
import * as fmt from './format.js';
import { setReadout, bindOutputs, setStatus } from './readout.js';
import { svg, el, clear } from './svg.js';

// Above this many files the per-file decision log is not requested (it would be large);
// the summary and the bin reasons are still shown.
const FULL_LOG_MAX_FILES = 20000;

export function scenarioFromForm(form) {
  const v = (name) => form.elements[name].value;
  const days = Number(v('days'));
  const bph = Number(v('batches_per_hour'));
  const fpb = Number(v('files_per_batch'));
  const target = Number(v('target_file_size_mb'));
  // As the simulator counts: a batch writes its files into every partition it spans.
  const partSeconds = { none: 0, daily: 86400, hourly: 3600, '15min': 900, '5min': 300 }[v('partition_by')];
  const partsPerBatch = partSeconds ? Math.ceil(3600 / bph / partSeconds) + 1 : 1;
  const expectedFiles = days * 24 * bph * fpb * partsPerBatch;
  return {
    days,
    partition_by: v('partition_by'),
    batches_per_hour: bph,
    files_per_batch: fpb,
    mb_per_hour: Number(v('mb_per_hour')),
    delete_fraction_per_day: Number(v('delete_pct')) / 100,
    maintenance: form.elements.reorg.checked ? 'reorg' : 'optimize',
    schedule: 'nightly',
    target_file_size_mb: target,
    min_file_size_mb: target,
    log_detail: expectedFiles <= FULL_LOG_MAX_FILES ? 'full' : 'summary',
  };
}

const READOUTS = [
  ['files_before', fmt.count], ['files_after', fmt.count], ['bins_kept', fmt.count],
  ['bins_dropped', fmt.count], ['num_files_added', fmt.count], ['scan_tasks_before', fmt.count],
  ['scan_tasks_after', fmt.count], ['tombstones', fmt.count],
];

function logText(result) {
  const lines = [];
  for (const step of result.steps) {
    lines.push(`day ${step.day}, hour ${step.hour}: ${step.operation}: ${step.files_before} files -> ${step.files_after}`);
    for (const s of step.summary ?? []) lines.push(`  ${s}`);
    for (const [reason, n] of Object.entries(step.kept_reasons ?? {})) lines.push(`  kept ${n} bin(s): ${reason}`);
    for (const [reason, n] of Object.entries(step.dropped_reasons ?? {})) lines.push(`  dropped ${n} bin(s): ${reason}`);
  }
  if (!result.steps.length) lines.push('no maintenance run happened in the simulated time');
  return lines.join('\n');
}

// One row per partition (at most 60 drawn), one box per bin: kept bins filled, dropped
// bins outlined, width by bytes.
function drawBins(node, result) {
  clear(node);
  const last = result.steps[result.steps.length - 1];
  const log = last?.log;
  if (!log || !log.partitions) {
    node.textContent = last ? 'too many files to draw every bin; see the decision log below' : 'no maintenance run';
    return;
  }
  const parts = log.partitions.slice(0, 60);
  const rowH = 14;
  const s = svg(720, parts.length * rowH + 20);
  const maxBytes = Math.max(1, ...log.bins.map((b) => b.bytes));
  parts.forEach((p, i) => {
    const y = i * rowH + 2;
    s.appendChild(el('text', { x: 0, y: y + 10, 'font-size': 9 }, (p.partition || '(table)').slice(-28)));
    let x = 170;
    for (const id of p.bins) {
      const b = log.bins[id];
      const w = Math.max(3, (b.bytes / maxBytes) * 120);
      const r = el('rect', {
        x, y, width: w, height: rowH - 3, class: b.kept ? 'bin kept' : 'bin dropped',
      });
      r.appendChild(el('title', {}, `${b.kept ? 'kept' : 'dropped'}: ${b.files} files, ${fmt.bytes(b.bytes)}; ${b.reason}`));
      s.appendChild(r);
      x += w + 2;
      if (x > 710) break;
    }
    if (!p.bins.length) s.appendChild(el('text', { x, y: y + 10, 'font-size': 9, fill: '#888' }, `${p.files} file(s), no bin`));
  });
  if (log.partitions.length > parts.length) {
    s.appendChild(el('text', { x: 0, y: parts.length * rowH + 14, 'font-size': 10 }, `… ${log.partitions.length - parts.length} more partitions`));
  }
  node.appendChild(s);
}

export function initLayout() {
  const panel = document.getElementById('panel-layout');
  const form = document.getElementById('layout-form');
  const status = document.getElementById('layout-status');
  bindOutputs(form);
  let seq = 0;
  const run = async () => {
    const mine = ++seq;
    const scenario = scenarioFromForm(form);
    setStatus(status, 'simulating…');
    panel.dataset.state = 'busy';
    try {
      const result = await post('/api/simulate', scenario);
      if (mine !== seq) return;
      for (const [k, f] of READOUTS) setReadout(panel, k, result.totals[k], f);
      document.getElementById('layout-log').textContent = logText(result);
      drawBins(document.getElementById('layout-picture'), result);
      setStatus(status, '');
    } catch (e) {
      if (mine !== seq) return;
      setStatus(status, e.message, true);
    }
    panel.dataset.request = JSON.stringify(scenario);
    panel.dataset.generation = String(Number(panel.dataset.generation ?? 0) + 1);
    panel.dataset.state = 'idle';
  };
  form.addEventListener('input', debounce(run, 150));
  form.addEventListener('submit', (e) => e.preventDefault());
  run();
}
