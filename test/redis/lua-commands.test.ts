import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/book/payment-policy.js';
import { policyReasons } from '../../src/events/violation.js';
import { luaSources } from '../../src/redis/commands/lua-sources.js';
import { claimAndReadScript } from '../../src/redis/joined-book-script.js';
import { commitScript } from '../../src/redis/book-scripts.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const commands = new URL('src/redis/commands/', root);

// Issue 32 §2: the book's Lua lives in src/redis/commands/*.lua, embedded at build time; the money policy
// (the decision table in payment-policy.ts) has one source, because no Lua decides anything about money.

describe('the payment book’s Redis commands', () => {
  it('are the .lua files, embedded as they are (the generator’s --check passes), and the scripts run that text', async () => {
    const files = readdirSync(commands).filter((file) => file.endsWith('.lua'));
    expect(Object.keys(luaSources).sort()).toEqual(files.map((file) => file.slice(0, -4)).sort());
    for (const file of files)
      expect(luaSources[file.slice(0, -4) as keyof typeof luaSources]).toBe(readFileSync(new URL(file, commands), 'utf8'));
    // A script that takes the order lease runs with the one `takeLease` function before its own text.
    expect(claimAndReadScript.source).toBe(luaSources['take-lease-function'] + luaSources['claim-and-read']);
    expect(commitScript.source).toBe(luaSources['commit-book']);
    await run(process.execPath, ['scripts/generate-lua.js', '--check'], { cwd: root });
  });

  it('hold no money policy: no reason code, no default, no amount comparison in any Lua the book runs', () => {
    for (const [name, text] of Object.entries(luaSources)) {
      const source = text.replace(/^\s*--.*$/gm, '');
      for (const reason of policyReasons) expect(source, `${name} mentions ${reason}`).not.toContain(reason);
      expect(source, name).not.toMatch(/amountInCents|cjson/);
    }
    // The defaults exist once: what the TypeScript step reads is the one table.
    expect(Object.keys(defaultPolicy).sort()).toEqual([...policyReasons].sort());
  });

  it('ship in the built package (dist embeds the same text)', async () => {
    const built = (await import(new URL('dist/src/redis/commands/lua-sources.js', root).href)) as { luaSources: typeof luaSources };
    expect(built.luaSources).toEqual(luaSources);
  });
});
