// The panel's entry point: tabs, and the three panels (layout, clustering, table).
import { get } from './api.js';
import { initLayout } from './layout.js';
import { initClustering } from './clustering.js';
import { initTable } from './table.js';

function showPanel(name) {
  for (const tab of document.querySelectorAll('.tab')) {
    tab.setAttribute('aria-selected', String(tab.dataset.panel === name));
  }
  for (const p of document.querySelectorAll('.panel')) p.hidden = p.id !== `panel-${name}`;
}

async function main() {
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => showPanel(tab.dataset.panel));
  }
  const info = await get('/api/tables');
  initLayout(info);
  initClustering(info);
  initTable(info);
  document.body.dataset.ready = 'true';
}

main().catch((e) => {
  document.body.dataset.ready = 'error';
  document.querySelector('main').prepend(Object.assign(document.createElement('p'), { className: 'error', textContent: e.message }));
});
