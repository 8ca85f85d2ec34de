import { PixApiError, PixNetworkError, PixResponseError, PixValidationError } from '../src/client/client-errors.js';
import { createClient } from '../src/client/create-client.js';
import type { Webhook } from '../src/client/webhook-schemas.js';
import { documentedEventNames, isPixEventName, pixEventNames, type PixEventName } from '../src/events/event-names.js';
import { apiEnvHelp, parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import { unknownLine, type CommandHelp } from './shared/command-help.js';
import { escapeControls as plain } from '../src/shared/escape-controls.js';
import { jsonText } from './shared/json-text.js';
import { redactedUrl } from '../src/shared/redacted-url.js';
import { credentialsFromEnv } from './shared/api-credentials.js';
import { stderrLogger } from './shared/stderr-logger.js';

const apiEnv = apiEnvHelp;
const jsonFlag = { flag: '--json', meaning: 'print JSON instead of tab-separated lines (default off)' };

export const webhooksHelp: CommandHelp = {
  usage: 'webhooks list | register | delete [flags]',
  about: "Lists, registers and deletes the company's webhooks at the gateway. Exit 1 when the gateway refuses or fails.",
  flags: [],
  env: apiEnv,
  subcommands: {
    list: {
      usage: 'webhooks list [--json]',
      about: 'Lists the registered webhooks: id, URL (password masked), events.',
      flags: [jsonFlag],
      env: apiEnv,
    },
    register: {
      usage: 'webhooks register --url <url> [--event <name>]... [--json]',
      about: `Registers a webhook. Events: ${pixEventNames.join(', ')}.`,
      flags: [
        { flag: '--url <url>', meaning: 'where the gateway delivers (required)' },
        { flag: '--event <name>', meaning: 'an event to subscribe to, repeatable (default: the eight documented ones)' },
        { flag: '--events <a,b>', meaning: 'several events, comma-separated' },
        jsonFlag,
      ],
      env: apiEnv,
    },
    delete: { usage: 'webhooks delete <id> [--json]', about: 'Deletes one webhook by its id.', flags: [jsonFlag], env: apiEnv },
  },
};

/** Manages the company's webhooks through the client. Exit 0 done, 1 the gateway refused or failed, 2 usage. */
export function webhooksCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const known = action === 'list' || action === 'register' || action === 'delete';
  return runCommand(known ? `webhooks ${action}` : 'webhooks', async () => {
    if (!known) {
      throw new UsageError(
        action === undefined
          ? 'webhooks needs a subcommand: list, register or delete'
          : unknownLine('subcommand', action, ['list', 'register', 'delete']),
      );
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
    const client = createClient({ ...credentialsFromEnv(), logger: stderrLogger });
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
