import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { reasonCodes, reasonStatus, type ReasonCode } from '../../src/shared/reasons.js';
import { pspNames } from '../../src/sources/registry.js';
import { requireBuiltPackage } from '../examples/example-process.js';
import { codeBlocks, docFiles, repoRoot } from './doc-files.js';

// The facts that change are generated from the code (scripts/generate-docs-facts.js writes them between
// <!-- generated:NAME --> markers) or checked against it here: reason codes, dedupe keys, time defaults, CLI flags,
// the demo's rows, and every relative link.

const run = promisify(execFile);
const read = (file: string) => readFileSync(`${repoRoot}${file}`, 'utf8');
const docs = docFiles();

function region(text: string, name: string): string | undefined {
  const open = `<!-- generated:${name} (node scripts/generate-docs-facts.js) -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(`<!-- /generated:${name} -->`);
  if (start === -1 || end === -1) return undefined;
  return text
    .slice(start + open.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

describe('generated facts', () => {
  let generated: Record<string, string> = {};
  beforeAll(async () => {
    await requireBuiltPackage();
    const { stdout } = await run(process.execPath, ['scripts/generate-docs-facts.js', '--print'], {
      cwd: repoRoot,
      maxBuffer: 8 * 1024 * 1024,
    });
    generated = JSON.parse(stdout) as Record<string, string>;
  }, 120_000);

  it.each([
    ['reasons', 'docs/reference/reasons.md'],
    ['dedupe-key-examples', 'docs/reference/events.md'],
    ['time-defaults', 'docs/reference/options.md'],
    ['cli-flags', 'docs/reference/cli.md'],
    ['demo-rows', 'README.md'],
    ['demo-rows', 'docs/testing.md'],
  ])('%s in %s is what the code says (else run `node scripts/generate-docs-facts.js`)', (name, file) => {
    expect(generated[name]).toBeDefined();
    expect(region(read(file), name)).toBe(generated[name]);
  });

  it('lists every reason code, and the demo rows of both tables', () => {
    for (const reason of reasonCodes) expect(generated.reasons).toContain(`| \`${reason}\` | ${reasonStatus[reason]} |`);
    const rows = generated['demo-rows']!.split('\n').filter((line) => /^[✓✗] /.test(line));
    expect(rows.length).toBe(12);
    expect(rows.every((row) => row.startsWith('✓'))).toBe(true);
  });
});

describe('facts checked against the code', () => {
  it("the README's status-code contract gives each reason its real status, and names every reason", () => {
    const readme = read('README.md');
    const table = readme.slice(readme.indexOf('## The status-code contract'), readme.indexOf('## Modes and their guarantees'));
    const named = new Set<string>();
    for (const row of table.split('\n').filter((line) => /^\| \d/.test(line))) {
      const statuses = [...row.split('|')[1]!.matchAll(/\d{3}/g)].map((m) => Number(m[0]));
      for (const [, reason] of row.matchAll(/`([a-z_]+)`/g)) {
        if (!(reasonCodes as string[]).includes(reason!)) continue;
        named.add(reason!);
        expect(statuses, `${reason} in "${row}"`).toContain(reasonStatus[reason as ReasonCode]);
      }
    }
    expect([...named].sort()).toEqual([...reasonCodes].sort());
  });

  it('the reasons page explains every reason with its status', () => {
    const page = read('docs/reference/reasons.md');
    const cases = page.slice(page.indexOf('## When each is answered'));
    for (const reason of reasonCodes) expect(cases).toContain(`| ${reasonStatus[reason]} | \`${reason}\` |`);
  });

  it("the event reference's field table names event.provider with every provider", () => {
    const events = readFileSync(`${repoRoot}docs/reference/events.md`, 'utf8');
    const row = events.split('\n').find((line) => line.startsWith('| `provider` |'));
    expect(row).toBeDefined();
    expect(['gateway', 'api-pix', ...pspNames].filter((provider) => !row!.includes(`'${provider}'`))).toEqual([]);
  });

  it('the dedupe key format lists its tagged parts in the order eventKey writes them', () => {
    const source = read('src/events/event-key.ts');
    const body = source.slice(source.indexOf('export function eventKey'));
    const codeTags = [...body.matchAll(/'(\w+)='/g)].map((m) => m[1]);
    const format = /^<name>:<resource id>:<status>:<amount in cents>(.*)$/m.exec(read('docs/reference/events.md'));
    expect(format).not.toBeNull();
    expect([...format![1]!.matchAll(/:(\w+)=/g)].map((m) => m[1])).toEqual(codeTags);
  });

  it('no doc shows a dedupe key without its amount (the old name:id:status)', () => {
    const stale: string[] = [];
    for (const file of docs) {
      for (const [key] of read(file).matchAll(/\b(?:transaction|transfer)_[a-z]+:[^\s`'"|),]+/g)) {
        const parts = key.split(':');
        if (parts.length < 4 || !/^(\d+|…)$/.test(parts[3]!)) stale.push(`${file}: ${key}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('no doc keeps the stale facts issue 24 found', () => {
    for (const file of docs) {
      const text = read(file);
      expect(text, file).not.toMatch(/renewed every 20 s|60 s, renewed/);
      expect(text, file).not.toMatch(/\$SECRET\b/); // the CLI reads PIXHOOK_SECRET
      expect(text, file).not.toMatch(/event:id:status/);
    }
  });
});

// --- CLI flags -------------------------------------------------------------------------------------------------

const helps = new Map<string, string | undefined>();
/** `pixhook <path> --help`, or undefined when the CLI has no such command. */
function helpOf(path: string[]): string | undefined {
  const key = path.join(' ');
  if (!helps.has(key)) {
    try {
      helps.set(key, execFileSync(process.execPath, [`${repoRoot}bin/pixhook.js`, ...path, '--help'], { encoding: 'utf8', stdio: 'pipe' }));
    } catch {
      helps.set(key, undefined);
    }
  }
  return helps.get(key);
}
const commandNames = () => [...helpOf([])!.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]!);
const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]));
/** The flags a help text lists (its own, not its subcommands' usage lines). */
const helpFlags = (help: string) => flagsIn(help.split('\nflags:\n')[1]!.split('\n\n')[0]!);

/** The deepest command path a `pixhook …` invocation names: `worker quarantine list --redis` → [worker, quarantine, list]. */
function commandPath(words: string[]): string[] {
  const path: string[] = [];
  for (const word of words) {
    if (!/^[a-z][a-z-]*$/.test(word) || helpOf([...path, word]) === undefined) break;
    path.push(word);
  }
  return path;
}

// Each `--help` is its own Node process (about 40 of them): on a loaded machine that takes far more than the
// default 20 s, and the limit here is only a guard against a hang.
describe('CLI flags in the docs', { timeout: 180_000 }, () => {
  it('every command and subcommand has its flags in the CLI reference', () => {
    const reference = read('docs/reference/cli.md');
    for (const command of commandNames()) {
      expect(reference, command).toContain(`### \`pixhook ${command}\``);
      expect(reference, command).toContain(`## pixhook ${command}\n`);
    }
  });

  it("each command's section in the CLI reference names only flags that command has", () => {
    const reference = read('docs/reference/cli.md');
    const sections = reference.split(/^## /m).filter((s) => s.startsWith('pixhook '));
    expect(sections.length).toBeGreaterThanOrEqual(8);
    for (const section of sections) {
      const command = /^pixhook ([a-z-]+)/.exec(section)![1]!;
      const help = helpOf([command]);
      expect(help, `pixhook ${command} is not a command`).toBeDefined();
      // The command's own flags, its subcommands' and the global ones.
      const subcommands = [...help!.matchAll(/^ {2}pixhook (.*)$/gm)].map((m) => commandPath(m[1]!.split(/\s+/)));
      const known = new Set([...helpFlags(help!), '--help', '--version', ...subcommands.flatMap((path) => [...helpFlags(helpOf(path)!)])]);
      for (const flag of flagsIn(section)) expect(known, `pixhook ${command}: ${flag}`).toContain(flag);
    }
  });

  it('every pixhook command line in the README and docs uses flags its command has', () => {
    const problems: string[] = [];
    const lines = docs.flatMap((file) =>
      codeBlocks(file)
        .filter((block) => block.lang === 'sh')
        .flatMap((block) => block.code.split('\n').map((line) => ({ file, line: line.replace(/\s#.*$/, '') }))),
    );
    let checked = 0;
    for (const { file, line } of lines) {
      const invocation = /(?:^|\s)pixhook((?:\s+\S+)*)/.exec(line);
      // `npm install pixhook express` names the package, not a command.
      if (!invocation || line.trimStart().startsWith('#') || /^\s*npm (?:install|i)\s/.test(line)) continue;
      const words = invocation[1]!.trim().split(/\s+/).filter(Boolean);
      const first = words[0];
      if (first !== undefined && /^[a-z]/.test(first) && !commandNames().includes(first)) {
        problems.push(`${file}: unknown command in "${line.trim()}"`);
        continue;
      }
      const path = commandPath(words);
      const help = helpOf(path)!;
      const known = path.length === 0 ? flagsIn(help) : new Set([...helpFlags(help), '--help']);
      for (const flag of flagsIn(words.join(' '))) if (!known.has(flag)) problems.push(`${file}: pixhook ${path.join(' ')} has no ${flag}`);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });
});

// --- links -----------------------------------------------------------------------------------------------------

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (text: string) => new Set([...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1]!)));

describe('links', () => {
  it('every relative link and anchor in the README and docs resolves', () => {
    const broken: string[] = [];
    for (const file of docs) {
      const text = read(file).replace(/```[\s\S]*?```/g, '');
      const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : new URL(path, `file:///${dir}`).pathname.slice(1).replace(/\/$/, '');
        if (!existsSync(`${repoRoot}${resolved}`)) {
          broken.push(`${file}: ${target} (no ${resolved})`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor))
          broken.push(`${file}: ${target} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README is a front door: at most 350 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(350);
  });
});
