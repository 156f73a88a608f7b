// Panel 3, a real table: the tables given to `lithify serve --table`, with the diagnose
// findings, files-per-partition and file-size histograms (GET /api/files), the history
// timeline with operation metrics (GET /api/describe) and the OPTIMIZE dry-run decision
// log (GET /api/optimize), whose target file size the slider changes.
import { get, debounce } from './api.js';
import * as fmt from './format.js';
import { setReadout, bindOutputs, setStatus } from './readout.js';
import { barChart, clear } from './svg.js';

function node(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function renderFindings(target, diag, error) {
  clear(target);
  if (error) { target.appendChild(node('p', 'muted', error)); return; }
  const findings = diag.findings ?? [];
  if (!findings.length) target.appendChild(node('p', 'muted', 'no findings: the layout looks healthy'));
  for (const f of findings) {
    const card = node('div', `finding ${f.severity}`);
    card.dataset.code = f.code;
    card.appendChild(node('div', 'title', `${f.severity.toUpperCase()} · ${f.title}`));
    card.appendChild(node('div', 'detail', f.detail));
    if (f.recommendation) card.appendChild(node('div', 'rec', `→ ${f.recommendation}`));
    if (f.effect?.description) card.appendChild(node('div', 'effect', f.effect.description));
    target.appendChild(card);
  }
}

const METRICS_SHOWN = ['numFiles', 'numOutputRows', 'numAddedFiles', 'numRemovedFiles', 'numFilesAdded',
  'numFilesRemoved', 'numDeletedRows', 'numDeletionVectorsAdded', 'numOutputBytes'];

function renderHistory(target, history) {
  clear(target);
  const list = node('ol', 'timeline');
  for (const h of history) {
    const li = node('li');
    li.dataset.version = String(h.version);
    li.appendChild(node('span', 'version', `v${h.version}`));
    li.appendChild(node('span', 'op', h.operation ?? '(no commitInfo)'));
    li.appendChild(node('span', 'ts', h.timestamp));
    const m = h.operationMetrics ?? {};
    const parts = METRICS_SHOWN.filter((k) => k in m).map((k) => `${k}=${m[k]}`);
    if (parts.length) li.appendChild(node('span', 'metrics', parts.join('  ')));
    list.appendChild(li);
  }
  target.appendChild(list);
}

function renderFiles(files) {
  const few = files.partitions.length <= 12;
  const parts = files.partitions.slice(0, 120).map((p) => ({ label: few ? (p.partition.split('=').pop() || '(table)') : '', title: p.partition || '(table)', value: p.files }));
  clear(document.getElementById('table-partitions')).appendChild(barChart(parts, { fmt: fmt.count, height: 120 }));
  const sizes = files.sizeHistogram.map((b) => ({ label: fmt.bytes(b.lo), title: `${fmt.bytes(b.lo)}–${fmt.bytes(b.hi)}`, value: b.files }));
  clear(document.getElementById('table-sizes')).appendChild(barChart(sizes, { fmt: fmt.count, height: 120, color: '#5a9' }));
}

export function initTable(info) {
  const panel = document.getElementById('panel-table');
  const form = document.getElementById('table-form');
  const status = document.getElementById('table-status');
  const select = form.elements.table;
  for (const t of info.tables) select.appendChild(Object.assign(document.createElement('option'), { value: t, textContent: t }));
  bindOutputs(form);
  if (!info.tables.length) {
    setStatus(status, 'no table given: start `lithify serve --table PATH`');
    panel.dataset.generation = '1';
    return;
  }
  let seq = 0;

  const runOptimize = async (table, mine) => {
    const params = { table, target_file_size: `${form.elements.target_mb.value}mb` };
    const opt = await get('/api/optimize', params);
    if (mine !== seq) return;
    setReadout(panel, 'filesToRewrite', opt.filesToRewrite, fmt.count);
    setReadout(panel, 'binsPlanned', opt.binsPlanned, fmt.count);
    document.getElementById('table-log').textContent = opt.decisionLogText.join('\n');
    panel.dataset.request = JSON.stringify(params);
  };

  const finish = (mine, error) => {
    if (mine !== seq) return;
    setStatus(status, error ? error.message : '', Boolean(error));
    panel.dataset.generation = String(Number(panel.dataset.generation ?? 0) + 1);
    panel.dataset.state = 'idle';
  };

  const loadAll = async () => {
    const mine = ++seq;
    const table = select.value;
    panel.dataset.state = 'busy';
    setStatus(status, 'reading the table…');
    try {
      const [desc, files] = await Promise.all([get('/api/describe', { table }), get('/api/files', { table, limit: 0 })]);
      if (mine !== seq) return;
      setReadout(panel, 'numFiles', files.numFiles, fmt.count);
      setReadout(panel, 'sizeInBytes', files.sizeInBytes, fmt.bytes);
      setReadout(panel, 'numPartitions', files.numPartitions, fmt.count);
      renderFiles(files);
      renderHistory(document.getElementById('table-history'), desc.history);
      if (info.diagnose) {
        try {
          renderFindings(document.getElementById('table-findings'), (await get('/api/diagnose', { table })).diagnosis);
        } catch (e) {
          renderFindings(document.getElementById('table-findings'), null, e.message);
        }
      } else {
        renderFindings(document.getElementById('table-findings'), null, 'diagnose is not part of this build');
      }
      await runOptimize(table, mine);
      finish(mine);
    } catch (e) {
      finish(mine, e);
    }
  };

  const reoptimize = debounce(async () => {
    const mine = ++seq;
    panel.dataset.state = 'busy';
    try {
      await runOptimize(select.value, mine);
      finish(mine);
    } catch (e) {
      finish(mine, e);
    }
  }, 150);

  select.addEventListener('change', loadAll);
  form.elements.target_mb.addEventListener('input', reoptimize);
  form.addEventListener('submit', (e) => e.preventDefault());
  loadAll();
}
