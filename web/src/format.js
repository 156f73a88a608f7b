// Number and byte formatting shared by the panels.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

// 1536 -> "1.5 KiB" (as lithify's FormatBytes).
export function bytes(n) {
  if (n === null || n === undefined) return '–';
  let v = Number(n);
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${UNITS[u]}`;
}

// 1234567 -> "1,234,567"; non-integers keep two decimals.
export function count(n) {
  if (n === null || n === undefined) return '–';
  const v = Number(n);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

export function ratio(n) {
  if (n === null || n === undefined) return '–';
  return `${Number(n).toFixed(2)}×`;
}
