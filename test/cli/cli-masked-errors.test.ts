import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// Issue 31: "The CLI prints a handlers module's import error verbatim, URL password included."
const tempDir = useTempDirs('pixhook-masked-');

describe('CLI errors are masked', () => {
  it('a --handlers module that throws on import: one line, credentials masked', async () => {
    const dir = tempDir();
    const handlers = join(dir, 'handlers.mjs');
    await writeFile(
      handlers,
      "throw new Error('cannot reach postgres://shop:hunter2@db.internal:5432/shop (api_key=hunter2, Authorization: Bearer hunter2)');\n",
    );
    const run = await runCli(['dev', '--port', '0', '--handlers', handlers], { killAfterMs: 15_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot be loaded: Error: cannot reach postgres:\/\/shop:\*\*\*@db\.internal:5432\/shop \(api_key=\*\*\*/);
    expect(run.stderr).toContain('Bearer ***');
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an unexpected error from a command is masked too', async () => {
    const dir = tempDir();
    const handlers = join(dir, 'handlers.mjs');
    // Registers fine, then the register function itself fails with a secret in its message.
    await writeFile(handlers, "export default function () { throw new Error('login failed with password=hunter2'); }\n");
    const run = await runCli(['dev', '--port', '0', '--handlers', handlers], { killAfterMs: 20_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('password=***');
    expect(run.stderr).not.toContain('hunter2');
  });
});

describe('--handlers in a CommonJS package', () => {
  it('says how to make it an ES module (npm init -y writes "type": "commonjs")', async () => {
    const dir = tempDir();
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', type: 'commonjs' }));
    await writeFile(join(dir, 'handlers.js'), 'export default function register(processing) { processing.onAny(() => {}); }\n');
    const run = await runCli(['dev', '--port', '0', '--handlers', join(dir, 'handlers.js')], { killAfterMs: 15_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/npm pkg set type=module`, or name the file \.mjs\)/);
  });
});
