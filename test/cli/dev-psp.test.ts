// `pixhook dev --profile <psp>` as a real process (the built CLI: `npm run build` first): the PSP's emulator
// pays a charge with its duplicate and a late pending; the receiver prints the payment once.
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli-process.js';

const running: RunningCli[] = [];
afterEach(async () => {
  for (const cli of running.splice(0)) await cli.stop();
});

async function control(base: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

describe.each(['mercado-pago', 'asaas', 'pagbank', 'woovi', 'pagarme'])('pixhook dev --profile %s', (psp) => {
  it('pays through the emulator: the handler (the printed event) runs once despite the duplicate and the late pending', async () => {
    const dev = startCli(['dev', '--profile', psp, '--port', '0'], { PIXHOOK_SECRET: undefined });
    running.push(dev);
    const [, emulatorUrl] = await dev.waitFor(/emulator at (http:\/\/127\.0\.0\.1:\d+)/, 20_000);
    await dev.waitFor(/open it in a browser:\n(http:\/\/\S+)/, 20_000);
    const charge = await control(emulatorUrl!, '/_emulator/charges', { amountInCents: 2590 });
    await control(emulatorUrl!, `/_emulator/charges/${String(charge['id'])}/pay`, { duplicate: true, latePending: true });
    await dev.waitFor(/"event":"transaction_paid"/, 10_000);
    // The three webhooks delivered (each answered), then the count.
    const deliveries = async () =>
      ((await (await fetch(`${emulatorUrl}/_emulator/deliveries`)).json()) as { data: { state: string }[] }).data.map((d) => d.state);
    for (let i = 0; i < 200 && (await deliveries()).some((s) => s !== 'delivered'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await deliveries()).toEqual(['delivered', 'delivered', 'delivered']);
    expect(dev.stdout().match(/"event":"transaction_paid"/g)).toHaveLength(1);
  });
});

it('pixhook dev --profile asaas refuses --secret', async () => {
  const dev = startCli(['dev', '--profile', 'asaas', '--port', '0', '--secret', 'x'], { PIXHOOK_SECRET: undefined });
  running.push(dev);
  expect(await dev.exited).toBe(2);
  expect(dev.stderr()).toContain('--secret does not apply to --profile asaas');
});
