import { PixApiError, PixNetworkError, PixResponseError, PixValidationError } from '../src/client/client-errors.js';
import { createClient } from '../src/client/create-client.js';
import type { Webhook } from '../src/client/webhook-schemas.js';
import { documentedEventNames, isPixEventName, pixEventNames, type PixEventName } from '../src/events/event-names.js';
import { parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import { escapeControls as plain } from '../src/shared/escape-controls.js';
import { jsonText } from './shared/json-text.js';
import { redactedUrl } from '../src/shared/redacted-url.js';

const usage = `webhooks list [--json] | webhooks register --url <url> [--event <name>... | --events <a,b>] [--json] | webhooks delete <id>
  credentials from PIXHOOK_API_KEY, PIXHOOK_API_SECRET, PIXHOOK_BASE_URL; events: ${pixEventNames.join(', ')}`;

/** Manages the company's webhooks through the client. Exit 0 done, 1 the gateway refused or failed, 2 usage. */
export function webhooksCommand(argv: string[]): Promise<number> {
  return runCommand(usage, async () => {
    const [action, ...rest] = argv;
    if (action !== 'list' && action !== 'register' && action !== 'delete') {
      throw new UsageError(action === undefined ? 'an action is required' : `unknown action "${action}"`);
    }
    const { values, positionals } = parseCommandLine(
      rest,
      {
        url: { type: 'string' },
        event: { type: 'string', multiple: true },
        events: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    const client = createClient(credentialsFromEnv());
    const print = (webhooks: Webhook[]) =>
      process.stdout.write(
        values.json
          ? `${jsonText(webhooks.map((w) => ({ ...w, url: redactedUrl(w.url) })))}\n`
          : webhooks.map((w) => `${plain(w.id)}\t${plain(redactedUrl(w.url))}\t${plain(w.events.join(','))}\n`).join(''),
      );

    try {
      if (action === 'list') {
        if (positionals.length > 0) throw new UsageError('list takes no arguments');
        print(await client.webhooks.list());
      } else if (action === 'register') {
        if (values.url === undefined) throw new UsageError('register needs --url <url>');
        const given = [...(values.event ?? []), ...(values.events ?? [])]
          .flatMap((e) => e.split(','))
          .map((e) => e.trim())
          .filter(Boolean);
        // No event named: subscribe to the eight the interface documents.
        const events = given.length > 0 ? given : [...documentedEventNames];
        const unknown = events.filter((e) => !isPixEventName(e));
        if (unknown.length > 0) throw new UsageError(`unknown event(s): ${unknown.join(', ')}`);
        print([await client.webhooks.register({ url: values.url, events: events as PixEventName[] })]);
      } else {
        const [id, ...extra] = positionals;
        if (id === undefined || extra.length > 0) throw new UsageError('delete needs exactly one webhook id');
        await client.webhooks.delete(id);
        process.stdout.write(values.json ? `${jsonText({ deleted: id })}\n` : `deleted ${id}\n`);
      }
      return 0;
    } catch (error) {
      if (error instanceof PixValidationError) throw new UsageError(error.message);
      if (error instanceof PixApiError || error instanceof PixNetworkError || error instanceof PixResponseError) {
        process.stderr.write(`pixhook: ${plain(error.message)}\n`);
        return 1;
      }
      throw error;
    }
  });
}

function credentialsFromEnv(): { apiKey: string; apiSecret: string; baseUrl: string } {
  const apiKey = process.env['PIXHOOK_API_KEY'];
  const apiSecret = process.env['PIXHOOK_API_SECRET'];
  const baseUrl = process.env['PIXHOOK_BASE_URL'];
  const missing = [
    ['PIXHOOK_API_KEY', apiKey],
    ['PIXHOOK_API_SECRET', apiSecret],
    ['PIXHOOK_BASE_URL', baseUrl],
  ]
    .filter(([, v]) => !v)
    .map(([name]) => name);
  if (missing.length > 0) throw new UsageError(`set ${missing.join(', ')} in the environment`);
  if (!URL.canParse(baseUrl as string)) throw new UsageError('PIXHOOK_BASE_URL must be a URL');
  return { apiKey: apiKey as string, apiSecret: apiSecret as string, baseUrl: baseUrl as string };
}
