import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Runs the built package (`npm run build` first) in its own process, with a resolve hook that reports
// every module specifier, to see when `qrcode-generator` is loaded.
const emulatorEntry = new URL('../../dist/src/emulator/index.js', import.meta.url).href;
const cliEntry = new URL('../../dist/cli/main.js', import.meta.url).href;

const hooks = `
let port;
export function initialize(data) {
  port = data.port;
  // A ping is answered after every specifier resolved before it: ordered messages make a barrier.
  port.on('message', () => port.postMessage('pong'));
}
export async function resolve(specifier, context, next) {
  port.postMessage(specifier);
  return next(specifier, context);
}`;

const script = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = [];
let pong;
port1.on('message', (m) => (m === 'pong' ? pong() : seen.push(m)));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
const barrier = () => new Promise((resolve) => { pong = resolve; port1.postMessage('ping'); });
const loaded = async () => (await barrier(), seen.includes('qrcode-generator'));

await import(${JSON.stringify(cliEntry)});
const { startEmulator, qrPngDataUri } = await import(${JSON.stringify(emulatorEntry)});
const afterImport = await loaded();
const emulator = await startEmulator();
const afterStart = await loaded();
await qrPngDataUri('00020101');
const afterFirstQr = await loaded();
await emulator.close();
port1.close();
console.log(JSON.stringify({ afterImport, afterStart, afterFirstQr }));
`;

function run(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

describe('emulator: the QR encoder loads at first use', () => {
  it('importing pixhook/emulator (or the CLI) and starting it do not load qrcode-generator; the first QR code does', async () => {
    expect(JSON.parse(await run())).toEqual({ afterImport: false, afterStart: false, afterFirstQr: true });
  });
});
