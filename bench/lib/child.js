import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benchDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs `node [flags] bench/<script> …args` and resolves with the JSON object on its last stdout line. */
export function runJson(script, args = [], { nodeFlags = [], env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, benchDir + script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(last));
      } catch (error) {
        reject(new Error(`${script} failed (${error.message}):\n${out}\n${err}`));
      }
    });
  });
}

/** Starts a long-running child that prints one JSON line when ready; resolves with it and a stop(). */
export function startServer(script, args = [], { nodeFlags = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, benchDir + script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${out}\n${err}`)));
    const onData = (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      const stop = () =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.removeAllListeners('exit');
          child.once('exit', () => done());
          child.kill('SIGTERM');
        });
      resolve({ info: JSON.parse(line), stop, child });
    };
    child.stdout.on('data', onData);
  });
}
