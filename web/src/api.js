// The panel's calls to `lithify serve`'s JSON API. Every call rejects with an Error whose
// message is the server's (a 400 names the bad parameter).

async function parse(res) {
  const text = await res.text();
  let body;
  try { body = JSON.parse(text); } catch { throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`); }
  if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

export async function get(path, params = {}) {
  const q = new URLSearchParams(params).toString();
  return parse(await fetch(q ? `${path}?${q}` : path));
}

export async function post(path, body) {
  return parse(await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  }));
}

// Runs `fn` at most once per `ms` after the last call: sliders fire many input events.
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
