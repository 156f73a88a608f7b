// Panel 2, clustering over time: daily ingest under whole-table ZORDER, windowed ZORDER
// or liquid clustering, maintained nightly, simulated day by day (POST /api/simulate).
// The hero is the write amplification (bytes maintenance wrote / bytes ingested); the day
// slider picks the night whose readouts and cubes are shown.
import { post, debounce } from './api.js';
import * as fmt from './format.js';
import { setReadout, bindOutputs, setStatus } from './readout.js';
import { barChart, svg, el, clear } from './svg.js';

export function scenarioFromForm(form) {
  const v = (name) => Number(form.elements[name].value);
  const strategy = form.elements.strategy.value;
  const s = {
    days: v('days'),
    gb_per_day: v('gb_per_day'),
    batches_per_hour: 1,
    files_per_batch: 1,
    schedule: 'nightly',
  };
  if (strategy === 'liquid') {
    Object.assign(s, {
      cluster_by: ['key'],
      maintenance: 'liquid',
      min_cube_size_gb: v('min_cube_size_gb'),
      change_keys_on_day: Math.min(v('change_keys_on_day'), s.days),
      full_on_day: Math.min(v('full_on_day'), s.days),
    });
  } else {
    Object.assign(s, {
      partition_by: 'daily',
      maintenance: 'zorder',
      zorder_by: ['key'],
      zorder_window_days: strategy === 'zorder_window' ? 7 : 0,
    });
  }
  return s;
}

// Per-day sums of the nightly runs.
export function nights(result) {
  const byDay = new Map();
  for (const st of result.steps) {
    const d = byDay.get(st.day) ?? { day: st.day, bytes_written: 0, lookup_files: 0, cubes_sealed: 0, cubes_open: 0 };
    d.bytes_written += st.bytes_written;
    d.lookup_files = st.lookup_files_after;
    d.cubes_sealed = st.cubes_sealed;
    d.cubes_open = st.cubes_open;
    byDay.set(st.day, d);
  }
  return byDay;
}

function drawCubes(node, night) {
  clear(node);
  if (!night) { node.textContent = 'no maintenance run that day'; return; }
  const n = night.cubes_sealed + night.cubes_open;
  const shown = Math.min(n, 200);
  const cell = 18;
  const perRow = 36;
  const s = svg(perRow * cell, Math.max(1, Math.ceil(shown / perRow)) * cell + 16);
  for (let i = 0; i < shown; i++) {
    const sealed = i < Math.min(night.cubes_sealed, shown);
    s.appendChild(el('rect', {
      x: (i % perRow) * cell + 1, y: Math.floor(i / perRow) * cell + 1, width: cell - 3, height: cell - 3,
      class: sealed ? 'cube sealed' : 'cube open',
    }));
  }
  s.appendChild(el('text', { x: 0, y: Math.ceil(shown / perRow) * cell + 12, 'font-size': 10 },
    `${night.cubes_sealed} sealed (filled), ${night.cubes_open} open (outlined)${n > shown ? `; first ${shown} drawn` : ''}`));
  node.appendChild(s);
}

export function initClustering() {
  const panel = document.getElementById('panel-clustering');
  const form = document.getElementById('clustering-form');
  const status = document.getElementById('clustering-status');
  bindOutputs(form);
  let seq = 0;
  let last = null;

  // The day slider only changes which night is shown: no new simulation.
  const showDay = () => {
    if (!last) return;
    const day = Math.min(Number(form.elements.day.value), Number(form.elements.days.value));
    const byDay = nights(last);
    const night = byDay.get(day);
    setReadout(panel, 'day_bytes_written', night ? night.bytes_written : 0, fmt.bytes);
    setReadout(panel, 'day_lookup_files', night ? night.lookup_files : null, fmt.count);
    setReadout(panel, 'day_cubes_sealed', night ? night.cubes_sealed : null, fmt.count);
    setReadout(panel, 'day_cubes_open', night ? night.cubes_open : null, fmt.count);
    const items = [];
    for (let d = 1; d <= Number(form.elements.days.value); d++) {
      items.push({ label: String(d), title: `day ${d}`, value: byDay.get(d)?.bytes_written ?? 0 });
    }
    const chart = document.getElementById('clustering-chart');
    clear(chart).appendChild(barChart(items, { fmt: fmt.bytes, highlight: day - 1 }));
    drawCubes(document.getElementById('clustering-cubes'), night);
    panel.dataset.day = String(day);
  };

  const run = async () => {
    const mine = ++seq;
    const scenario = scenarioFromForm(form);
    const liquid = scenario.maintenance === 'liquid';
    for (const n of ['min_cube_size_gb', 'change_keys_on_day', 'full_on_day']) form.elements[n].disabled = !liquid;
    form.elements.day.max = String(scenario.days);
    setStatus(status, 'simulating…');
    panel.dataset.state = 'busy';
    try {
      const result = await post('/api/simulate', scenario);
      if (mine !== seq) return;
      last = result;
      setReadout(panel, 'write_amplification', result.totals.write_amplification, fmt.ratio);
      setReadout(panel, 'bytes_ingested', result.totals.bytes_ingested, fmt.bytes);
      setReadout(panel, 'bytes_written', result.totals.bytes_written, fmt.bytes);
      showDay();
      setStatus(status, '');
    } catch (e) {
      if (mine !== seq) return;
      setStatus(status, e.message, true);
    }
    panel.dataset.request = JSON.stringify(scenario);
    panel.dataset.generation = String(Number(panel.dataset.generation ?? 0) + 1);
    panel.dataset.state = 'idle';
  };
  const rerun = debounce(run, 200);
  form.addEventListener('input', (e) => {
    if (e.target.name === 'day') showDay();
    else rerun();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  run();
}
