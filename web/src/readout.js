// Readouts: an element with data-readout="key" shows a formatted value and keeps the raw
// value in data-value (the end-to-end test compares it with the JSON API's answer).
// Forms: every range input shows its value in the <output name="NAME_out"> beside it.

export function setReadout(root, key, value, fmt) {
  for (const e of root.querySelectorAll(`[data-readout="${key}"]`)) {
    e.dataset.value = value === null || value === undefined ? '' : String(value);
    e.textContent = fmt(value);
  }
}

export function bindOutputs(form) {
  const sync = () => {
    for (const input of form.querySelectorAll('input[type=range]')) {
      const out = form.querySelector(`output[name="${input.name}_out"]`);
      if (out) out.textContent = input.value;
    }
  };
  form.addEventListener('input', sync);
  sync();
}

// A status line: "computing…", an error (class error), or empty.
export function setStatus(node, text, isError = false) {
  node.textContent = text;
  node.classList.toggle('error', isError);
  node.dataset.state = isError ? 'error' : text ? 'busy' : 'idle';
}
