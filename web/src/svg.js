// Small inline-SVG drawing helpers: no library, nothing fetched.

const NS = 'http://www.w3.org/2000/svg';

export function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function svg(width, height) {
  return el('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img' });
}

// A vertical bar chart: items [{label, value, title}], values formatted by `fmt`.
export function barChart(items, { width = 720, height = 200, fmt = String, color = '#3b6ea5', highlight = -1 } = {}) {
  const s = svg(width, height + 30);
  const max = Math.max(1, ...items.map((d) => d.value));
  const bw = width / Math.max(1, items.length);
  items.forEach((d, i) => {
    const h = (d.value / max) * height;
    const r = el('rect', {
      x: i * bw + 1, y: height - h, width: Math.max(1, bw - 2), height: h,
      fill: i === highlight ? '#d2691e' : color,
    });
    r.appendChild(el('title', {}, `${d.title ?? d.label}: ${fmt(d.value)}`));
    s.appendChild(r);
    if (items.length <= 40 || i % Math.ceil(items.length / 20) === 0) {
      s.appendChild(el('text', { x: i * bw + bw / 2, y: height + 14, 'text-anchor': 'middle', 'font-size': 10 }, d.label));
    }
  });
  s.appendChild(el('text', { x: 2, y: 10, 'font-size': 10, fill: '#555' }, `max ${fmt(max)}`));
  return s;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}
