import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';

// docs/reference/cli.md describes each command once, in prose, and lists its flags once, generated from
// its --help (scripts/generate-docs-facts.js); no command waits "elsewhere" for its flags.
const reference = readFileSync('docs/reference/cli.md', 'utf8');

async function commandNames(): Promise<string[]> {
  const { stdout } = await runCli(['--help']);
  const list = stdout.split('\ncommands:\n')[1]!.split('\n\n')[0]!;
  return list
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter(Boolean);
}

const count = (pattern: RegExp) => (reference.match(pattern) ?? []).length;
const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('docs/reference/cli.md', () => {
  it('describes every command once and lists its flags once', async () => {
    const names = await commandNames();
    expect(names).toContain('dev');
    expect(names).toContain('console');
    const counts = names.map((name) => [
      name,
      count(new RegExp(`^## pixhook ${escaped(name)}$`, 'gm')),
      count(new RegExp(`^### \`pixhook ${escaped(name)}\`$`, 'gm')),
    ]);
    expect(counts).toEqual(names.map((name) => [name, 1, 1]));
  });

  it('links every command from the contents at its top', async () => {
    const contents = reference.split('\n## Conventions')[0]!;
    const names = await commandNames();
    expect(names.filter((name) => !contents.includes(`[${name}](#pixhook-${name})`))).toEqual([]);
  });

  it('leaves no command for later', () => {
    expect(reference).not.toMatch(/documented elsewhere|once they are part of/i);
  });
});
