/** `R$ 12,34` from integer cents; a dash when unknown. */
export function money(cents: number | undefined): string {
  if (cents === undefined || !Number.isFinite(cents)) return '—';
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  const reais = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}R$ ${reais},${String(abs % 100).padStart(2, '0')}`;
}

/** `2026-11-23 19:04:05` (UTC) from ISO 8601; the text as given when it does not parse. */
export function when(iso: string | undefined): string {
  if (iso === undefined) return '—';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** A signature header shown masked: the scheme and a few characters, never enough to reuse. */
export function maskSignature(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const cut = value.indexOf('=') + 1;
  const head = value.slice(0, Math.min(value.length, cut + 4, 16));
  return `${head}…`;
}
