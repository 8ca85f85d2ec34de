import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryJournal, JournalEntry, Processing } from '../../src/index.js';
import type { ConsoleSandbox } from '../../src/console/index.js';
import { replayBody } from '../../src/console/replay-body.js';
import { describeError } from '../../src/shared/describe-error.js';
import { CommandFailure } from './cli-args.js';
import { answerOfEntry, type DeliveryAnswer } from './delivery-lines.js';
import { playScenario, scenarioNames, scenarios } from './dev-scenarios.js';

/** The paths `pixhook trigger` and `pixhook resend --dev` post to, on the dev sandbox's own port. */
export const devControlPaths = { trigger: '/_pixhook/trigger', resend: '/_pixhook/resend' } as const;

/** What `POST /_pixhook/trigger` answers: the steps played and each delivery the receiver answered. */
export interface TriggerAnswer {
  scenario: string;
  charge: string;
  steps: string[];
  deliveries: DeliveryAnswer[];
  /** Where the deliveries went (your app's URL when forwarding), for the refusal hint. */
  receiver: string;
  profile: 'gateway' | 'api-pix';
}

/** What `POST /_pixhook/resend` answers: the replay's journal id and its answer. */
export interface ResendAnswer {
  id: string;
  delivery: DeliveryAnswer;
}

// A delivery's first answer is in once nothing new came for this long (retries come seconds later).
const quietMs = 700;
const settleWithinMs = 15_000;
const maxBodyBytes = 4096;

/**
 * `pixhook dev`'s JSON controls for the CLI: `trigger` plays a scenario on the sandbox (the same controls as
 * the page) and answers with what the receiver answered; `resend` replays one journaled delivery through the
 * receiver's processing, as the console's Replay does. They accept only a JSON POST without an `Origin`
 * (a page in a browser cannot send one without a preflight this server never grants) from this machine.
 */
export function devControls(input: {
  profile: 'gateway' | 'api-pix';
  sandbox: ConsoleSandbox;
  journal: DeliveryJournal;
  /** The built-in receiver's processing; absent when forwarding (your app runs the handlers). */
  processing: Processing | undefined;
  receiver: () => string;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const { sandbox, journal } = input;

  /** Waits until every delivery the sandbox's gateway sent since `before` has its first answer, and nothing new comes. */
  async function settle(before: Set<string>): Promise<void> {
    const deadline = Date.now() + settleWithinMs;
    let seen = '';
    let since = Date.now();
    for (;;) {
      const fresh = (await sandbox.deliveries()).filter((d) => !before.has(d.id));
      const now = fresh.map((d) => `${d.id}:${d.attempts.length}`).join(',');
      if (now !== seen) [seen, since] = [now, Date.now()];
      if ((fresh.every((d) => d.attempts.length > 0) && Date.now() - since >= quietMs) || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function trigger(name: string): Promise<[number, unknown]> {
    const scenario = Object.hasOwn(scenarios, name) ? scenarios[name] : undefined;
    if (scenario === undefined) return [404, { error: `unknown scenario; one of: ${scenarioNames.join(', ')}` }];
    if (scenario.profile !== input.profile)
      return [
        409,
        {
          error: `${name} plays on pixhook dev${scenario.profile === 'api-pix' ? ' --profile api-pix' : ''}; this sandbox runs the ${input.profile} profile`,
        },
      ];
    const startedAt = new Date().toISOString();
    const before = new Set((await sandbox.deliveries()).map((d) => d.id));
    const played = await playScenario(sandbox, scenario, () => settle(before));
    const entries = (await journal.list({ limit: 200 })).filter((e) => e.at >= startedAt && e.replayOf === undefined).reverse();
    const answer: TriggerAnswer = {
      scenario: name,
      charge: played.charge,
      steps: played.steps,
      deliveries: entries.map(answerOfEntry),
      receiver: input.receiver(),
      profile: input.profile,
    };
    return [200, answer];
  }

  async function resend(id: string): Promise<[number, unknown]> {
    if (input.processing === undefined)
      return [
        409,
        {
          error: 'pixhook dev is forwarding to your app: resend the delivery from the console of your app, or run dev without --forward-to',
        },
      ];
    const entry: JournalEntry | undefined = await journal.get(id);
    if (entry === undefined) return [404, { error: `no delivery ${JSON.stringify(id)} in this sandbox's journal` }];
    if (!entry.verified || entry.body === undefined) return [409, { error: 'only a verified delivery with its body can be sent again' }];
    const replay = await replayBody({
      bytes: new TextEncoder().encode(entry.body),
      processing: input.processing,
      journal,
      replayOf: entry.id,
    });
    const answer: ResendAnswer = { id: replay.id, delivery: answerOfEntry(replay) };
    return [200, answer];
  }

  return (req, res) => {
    const write = ([status, body]: [number, unknown]) =>
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    if (req.method !== 'POST') return void write([405, { error: 'POST a JSON body' }]);
    const fetchSite = req.headers['sec-fetch-site'];
    if (req.headers.origin !== undefined || (fetchSite !== undefined && fetchSite !== 'none'))
      return void write([403, { error: 'for the pixhook CLI only' }]);
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return void write([415, { error: 'POST a JSON body' }]);
    void readJson(req)
      .then(async (body) => {
        const path = new URL(req.url ?? '/', 'http://localhost').pathname;
        if (path === devControlPaths.trigger && typeof body.scenario === 'string') return write(await trigger(body.scenario));
        if (path === devControlPaths.resend && typeof body.id === 'string') return write(await resend(body.id));
        write([400, { error: 'expected {"scenario": "…"} (trigger) or {"id": "…"} (resend)' }]);
      })
      .catch((error: unknown) => {
        if (!res.headersSent) write([500, { error: describeError(error).split('\n')[0] ?? 'failed' }]);
      });
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBodyBytes) throw new CommandFailure('request_invalid', 'the body is too large');
    chunks.push(chunk as Buffer);
  }
  const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
