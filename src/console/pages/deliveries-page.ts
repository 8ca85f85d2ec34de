import type { JournalEntry, JournalQuery } from '../../journal/delivery-journal.js';
import { html } from '../html.js';
import type { SandboxDelivery } from '../console-sandbox.js';
import { deliveryTable } from './delivery-rows.js';
import { layout, type PageContext } from './layout.js';

const statuses = ['200', '202', '400', '401', '405', '409', '413', '415', '500', '503'];

export function deliveriesPage(
  context: PageContext,
  entries: readonly JournalEntry[],
  query: JournalQuery,
  gateway: readonly SandboxDelivery[] = [],
): string {
  const field = (name: 'event' | 'reason' | 'resource', label: string) =>
    html`<label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${query[name] ?? ''}" />`;
  const status = query.status === undefined ? '' : String(query.status);
  const body = html`<section aria-labelledby="charts-title" class="charts">
      <h2 id="charts-title">Last hour</h2>
      <figure>
        <div class="chart" data-chart="answers" data-src="${context.base}/api/stats"></div>
        <figcaption>Deliveries per minute, by answer</figcaption>
      </figure>
      <figure>
        <div class="chart" data-chart="latency" data-src="${context.base}/api/stats"></div>
        <figcaption>Handler latency p50 and p99 (ms)</figcaption>
      </figure>
    </section>
    <form method="get" action="${context.base}/deliveries" class="filters" role="search" aria-label="Filter deliveries">
      ${field('event', 'Event')}
      <label for="f-status">Answer</label
      ><select id="f-status" name="status">
        <option value="">any</option>
        ${statuses.map((s) => html`<option value="${s}" ${s === status ? html` selected` : ''}>${s}</option>`)}
      </select>
      ${field('reason', 'Reason')} ${field('resource', 'Resource id')}
      <button type="submit">Filter</button>
    </form>
    <details class="bulk-replay">
      <summary>Bulk replay</summary>
      <p>
        Replays the matching verified deliveries, oldest first, through dedupe: a handled event comes back
        <span class="pill pill-duplicate">duplicate</span>. Times are UTC (2026-11-27T10:00:00Z).
      </p>
      <form method="post" action="${context.base}/actions/replays" class="filters bulk">
        <input type="hidden" name="_csrf" value="${context.csrf}" />
        <label for="r-since">Since</label><input id="r-since" name="since" /> <label for="r-until">Until</label
        ><input id="r-until" name="until" /> <label for="r-event">Event</label
        ><input id="r-event" name="event" value="${query.event ?? ''}" /> <label for="r-answer">Answer</label
        ><input id="r-answer" name="answer" inputmode="numeric" value="${status}" /> <label for="r-reason">Reason</label
        ><input id="r-reason" name="reason" value="${query.reason ?? ''}" /> <label for="r-resource">Resource id</label
        ><input id="r-resource" name="resource" value="${query.resource ?? ''}" />
        <!-- The first button is what Enter presses: the dry run. -->
        <button type="submit" name="mode" value="dry-run">Dry run</button>
        <button type="submit" name="mode" value="run">Replay them</button>
      </form>
    </details>
    ${deliveryTable(
      context.base,
      entries,
      query,
      `${entries.length} most recent deliveries, one row per event (its attempts folded inside), newest first; new ones appear live`,
      gateway,
    )}`;
  return layout(context, 'Deliveries', '/deliveries', body);
}
