// Rows that arrive over server-sent events, built with textContent only: a payload string is never markup.
import { deliveryState } from './delivery-state.js';
import { rowOf } from './row-of.js';

interface LiveEntry {
  id: string;
  key?: string;
  at: string;
  status: number;
  reason?: string;
  event?: string;
  resourceId?: string;
  amountInCents?: number;
  channel?: string;
  replayOf?: string;
  verified: boolean;
  warnings?: string[];
  items?: { event: string; key?: string }[];
  attempts: unknown[];
}

function money(cents: number | undefined): string {
  if (cents === undefined || !Number.isFinite(cents)) return '—';
  const abs = Math.abs(Math.trunc(cents));
  const reais = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${cents < 0 ? '-' : ''}R$ ${reais},${String(abs % 100).padStart(2, '0')}`;
}

function when(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : iso;
}

function cell(row: HTMLTableRowElement, label: string, text: string, className?: string): HTMLTableCellElement {
  const td = row.insertCell();
  td.textContent = text;
  td.dataset['label'] = label;
  if (className !== undefined) td.className = className;
  return td;
}

function link(td: HTMLTableCellElement, href: string, text: string): void {
  td.textContent = '';
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  td.append(a);
}

/** The same cells as the server's `deliveryRow`; `count`: the deliveries of this event so far. */
function buildRow(base: string, entry: LiveEntry, count = 1): HTMLTableRowElement {
  const row = document.createElement('tr');
  const state = deliveryState(entry);
  row.dataset['deliveryId'] = entry.id;
  row.dataset['status'] = String(entry.status);
  row.dataset['state'] = state;
  const { key, event } = rowOf(entry);
  row.dataset['key'] = key;
  row.dataset['count'] = String(count);
  link(cell(row, 'Received (UTC)', ''), `${base}/deliveries/${encodeURIComponent(entry.id)}`, when(entry.at));
  cell(row, 'Event', event ?? '—');
  const resource = cell(row, 'Resource', '—');
  if (entry.resourceId !== undefined) link(resource, `${base}/resources/${encodeURIComponent(entry.resourceId)}`, entry.resourceId);
  cell(row, 'Amount', money(entry.amountInCents), 'num');
  const pill = document.createElement('span');
  pill.className = `pill pill-${state}`;
  pill.textContent = state;
  cell(row, 'State', '').append(pill);
  cell(row, 'Answer', String(entry.status), `status s${Math.floor(entry.status / 100)}xx`);
  cell(row, 'Reason', entry.reason ?? '');
  cell(row, 'Channel', entry.replayOf !== undefined ? 'replay' : (entry.channel ?? ''));
  cell(row, 'Runs', String(entry.attempts.length), 'num');
  // The folded list is the server's; a live row says how many deliveries the event has had (reload to unfold).
  cell(row, 'Attempts', count === 1 ? '1 delivery' : `${count} deliveries`);
  row.classList.add('arrived');
  return row;
}

const maxRows = 200;

/** Follows the table's `data-live` stream: new deliveries on top, updated ones (a run appended) in place. */
export function followLive(table: HTMLTableElement): void {
  const url = table.dataset['live'];
  const base = table.dataset['base'] ?? '';
  const body = table.tBodies[0];
  if (url === undefined || body === undefined) return;
  const source = new EventSource(url);
  source.addEventListener('delivery', (message) => {
    let entry: LiveEntry;
    try {
      entry = JSON.parse((message as MessageEvent<string>).data) as LiveEntry;
    } catch {
      return;
    }
    if (typeof entry.id !== 'string' || typeof entry.status !== 'number') return;
    const existing = body.querySelector<HTMLTableRowElement>(`tr[data-delivery-id="${CSS.escape(entry.id)}"]`);
    if (existing) {
      existing.replaceWith(buildRow(base, entry, Number(existing.dataset['count'] ?? '1') || 1));
    } else {
      // One row per event: another delivery of the same event takes its row's place, on top.
      const key = rowOf(entry).key;
      const same = key.startsWith('entry:') ? null : body.querySelector<HTMLTableRowElement>(`tr[data-key="${CSS.escape(key)}"]`);
      const count = same === null ? 1 : (Number(same.dataset['count'] ?? '1') || 1) + 1;
      same?.remove();
      body.prepend(buildRow(base, entry, count));
    }
    while (body.rows.length > maxRows) body.deleteRow(-1);
  });
  window.addEventListener('pagehide', () => source.close());
}
