import { createProcessing, memoryDedupeStore } from '../src/index.js';
import { replayBody } from '../src/console/replay-body.js';
import { postgresShared, redisShared } from './shared/journal-backends.js';
import { parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { answerOfEntry, deliveryLines, type DeliveryAnswer } from './shared/delivery-lines.js';
import { devUrlFrom, postDevControl, unreachableExit } from './shared/dev-client.js';
import { devControlPaths, type ResendAnswer } from './shared/dev-controls.js';
import { jsonText } from './shared/json-text.js';
import { loadHandlers } from './shared/load-handlers.js';
import { redisEnvHelp } from './shared/redis-backend.js';
import { stderrLogger } from './shared/stderr-logger.js';

export const resendHelp: CommandHelp = {
  usage: 'resend <delivery id> (--redis <url> | --postgres <url>) --handlers <module> [--force]   (or: resend <delivery id> --dev <url>)',
  about:
    "Sends one journaled delivery (its id as the console and `pixhook replay` show it) again through the receiver's processing, as the console's Replay does: its dedupe decides (a handled event comes back duplicate unless --force). Prints the delivery and the answer. Exit 0 when answered 2xx, 1 when not (or no such delivery), 2 on a usage error, 3 when no pixhook dev answers at --dev.",
  flags: [
    { flag: '--redis <url>', meaning: 'the journal and dedupe store your receivers share (default: PIXHOOK_REDIS_URL)' },
    { flag: '--postgres <url>', meaning: 'the journal and the inbox (dedupe) your receivers share in PostgreSQL' },
    { flag: '--dev <url>', meaning: 'a running pixhook dev sandbox (the URL it prints last): its receiver runs the delivery again' },
    { flag: '--handlers <module>', meaning: 'with --redis or --postgres: the module that registers your handlers (required)' },
    {
      flag: '--force',
      meaning: 'with --redis or --postgres: run the handlers even when the event was handled (skips the shared dedupe store)',
    },
  ],
  env: redisEnvHelp,
};

/** `pixhook resend <id>`: one delivery again, through the same replay as `pixhook replay` and the console's Replay. */
export function resendCommand(argv: string[]): Promise<number> {
  return runCommand('resend', async () => {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        redis: { type: 'string' },
        postgres: { type: 'string' },
        dev: { type: 'string' },
        handlers: { type: 'string' },
        force: { type: 'boolean', default: false },
      },
      true,
    );
    const [id, ...extra] = positionals;
    if (id === undefined || id === '')
      throw new UsageError('which delivery? pixhook resend <delivery id> (the console shows each one’s id)');
    if (extra.length > 0) throw new UsageError(`one delivery id at a time, got: ${jsonText(positionals)}`);
    const redis =
      values.redis ??
      (values.postgres === undefined && values.dev === undefined ? process.env['PIXHOOK_REDIS_URL'] || undefined : undefined);
    const given = [redis, values.postgres, values.dev].filter((v) => v !== undefined).length;
    if (given !== 1) throw new UsageError('give one of --redis <url>, --postgres <url> or --dev <url>: where the delivery is journaled');
    if (values.dev !== undefined) {
      if (values.handlers !== undefined || values.force)
        throw new UsageError('--handlers and --force apply to --redis and --postgres: pixhook dev runs its own handlers');
      return resendOnDev(id, values.dev);
    }
    if (values.handlers === undefined) throw new UsageError('pixhook resend needs --handlers <module>: the handlers that run it');
    const register = await loadHandlers(values.handlers);
    const shared = redis !== undefined ? await redisShared(redis) : await postgresShared(values.postgres!);
    try {
      const entry = await shared.journal.get(id);
      if (entry === undefined) {
        process.stderr.write(`pixhook resend: no delivery ${jsonText(id)} in the journal on ${shared.label}\n`);
        return 1;
      }
      if (!entry.verified || entry.body === undefined) {
        process.stderr.write(`pixhook resend: ${jsonText(id)} was not verified (no body is kept): it cannot be sent again\n`);
        return 1;
      }
      // --force: a store of its own, so the shared done-marks do not stop the run (they are what --force is for).
      const processing = createProcessing({
        store: values.force ? memoryDedupeStore() : shared.store,
        journal: shared.journal,
        logger: stderrLogger,
      });
      await register(processing);
      const replay = await replayBody({
        bytes: new TextEncoder().encode(entry.body),
        processing,
        journal: shared.journal,
        replayOf: entry.id,
      });
      await processing.drain?.();
      return printed(entry.id, replay.id, answerOfEntry(replay));
    } finally {
      await shared.close();
    }
  });
}

async function resendOnDev(id: string, value: string): Promise<number> {
  const answer = await postDevControl(devUrlFrom(value), devControlPaths.resend, { id });
  if (!answer.ok) {
    process.stderr.write(`pixhook resend: ${answer.why}\n`);
    return unreachableExit;
  }
  if (answer.status !== 200) {
    process.stderr.write(`pixhook resend: ${jsonText(answer.json['error'])}\n`);
    return 1;
  }
  const resent = answer.json as unknown as ResendAnswer;
  return printed(id, resent.id, resent.delivery);
}

function printed(id: string, replayId: string, delivery: DeliveryAnswer): number {
  process.stdout.write(
    `${[...deliveryLines(delivery), `pixhook resend: ${jsonText(id)} sent again as ${jsonText(replayId)}`].join('\n')}\n`,
  );
  return delivery.status < 300 ? 0 : 1;
}
