import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real Debian nginx on a free loopback port, in its own prefix directory, owned by one test file. */
export interface NginxServer {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts `nginx -p <dir> -c <dir>/nginx.conf -g 'daemon off;'` with the `server { … }` block that
 * `server(port, dir)` returns; `files` are written into the directory first (certificates).
 */
export async function startNginx(files: Record<string, string>, server: (port: number, dir: string) => string): Promise<NginxServer> {
  const dir = await mkdtemp(join(tmpdir(), 'pixhook-nginx-'));
  const port = await freePort();
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text, { mode: 0o600 });
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join('\n  ');
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const conf = `${user}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  ${temp}
  ${server(port, dir)}
}
`;
  await writeFile(join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`nginx exited (${String(code)}): ${output}`))),
  );
  // Ready once it accepts connections (or failed once it exited).
  await Promise.race([waitForPort(port), exited]);
  exited.catch(() => undefined);
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGQUIT');
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
