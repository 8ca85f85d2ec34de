import { startEmulator } from '../src/emulator/start-emulator.js';
import type { DeliveryRecord } from '../src/emulator/emulator-records.js';
import { emulatorRefusedPixKey } from '../src/emulator/gateway-state.js';
import type { PayloadVariant } from '../src/events/event-types.js';
import { parseCommandLine, portFrom, runCommand, untilSignal, UsageError } from './cli-args.js';

const usage =
  'emulator [--port <n>] [--host 127.0.0.1] [--api-key <k> --api-secret <s> --webhook-secret <w>] [--variant a|b|short] [--backoff-ms <n>] [--transfer-step-ms <n>] [--quiet]';

/**
 * Serves the gateway emulator until SIGINT/SIGTERM. Prints, on stdout, the base URL and the
 * credentials as `NAME=value` lines (secrets only when generated here, never ones the user gave);
 * requests and deliveries go to stderr, one line each.
 */
export function emulatorCommand(argv: string[]): Promise<number> {
  return runCommand(usage, async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string' },
      'api-secret': { type: 'string' },
      'webhook-secret': { type: 'string' },
      variant: { type: 'string', default: 'a' },
      'backoff-ms': { type: 'string' },
      'transfer-step-ms': { type: 'string' },
      quiet: { type: 'boolean', default: false },
    });
    const variant = values.variant;
    if (variant !== 'a' && variant !== 'b' && variant !== 'short') throw new UsageError(`--variant must be a, b or short, got "${variant}"`);
    const quiet = values.quiet;
    const log = (line: string) => {
      if (!quiet) process.stderr.write(`${line}\n`);
    };

    const emulator = await startEmulator({
      port: portFrom(values.port, 4010),
      host: values.host,
      variant: variant satisfies PayloadVariant,
      ...(values['api-key'] !== undefined && { apiKey: values['api-key'] }),
      ...(values['api-secret'] !== undefined && { apiSecret: values['api-secret'] }),
      ...(values['webhook-secret'] !== undefined && { webhookSecret: values['webhook-secret'] }),
      ...(values['backoff-ms'] !== undefined && { backoffMs: millisecondsFrom('--backoff-ms', values['backoff-ms']) }),
      ...(values['transfer-step-ms'] !== undefined && { transferStepMs: millisecondsFrom('--transfer-step-ms', values['transfer-step-ms']) }),
      onRequest: (entry) => log(`pixhook emulator: ${entry.method} ${entry.path} → ${entry.status === 0 ? 'dropped' : entry.status}`),
      onDelivery: (delivery) => log(deliveryLine(delivery)),
    });

    const given = (flag: 'api-secret' | 'webhook-secret', value: string) => (values[flag] === undefined ? value : '(as given)');
    process.stdout.write(
      [
        `PIXHOOK_BASE_URL=${emulator.url}`,
        `PIXHOOK_API_KEY=${emulator.credentials.apiKey}`,
        `PIXHOOK_API_SECRET=${given('api-secret', emulator.credentials.apiSecret)}`,
        `PIXHOOK_WEBHOOK_SECRET=${given('webhook-secret', emulator.credentials.webhookSecret)}`,
        '',
      ].join('\n'),
    );
    log(`pixhook emulator: listening on ${emulator.url} (variant ${variant}); transfers to ${emulatorRefusedPixKey} are refused`);
    await untilSignal();
    await emulator.close();
    return 0;
  });
}

function deliveryLine(delivery: DeliveryRecord): string {
  const last = delivery.attempts.at(-1);
  const outcome = delivery.delivered ? `delivered (${last?.status ?? '?'})` : `failed (${last?.status ?? last?.error ?? 'no answer'})`;
  return `pixhook emulator: ${delivery.event} ${delivery.resourceId} → ${delivery.url} [${delivery.scope}] ${outcome} after ${delivery.attempts.length} attempt(s)`;
}

function millisecondsFrom(flag: string, value: string): number {
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new UsageError(`${flag} must be a non-negative number, got "${value}"`);
  return ms;
}
