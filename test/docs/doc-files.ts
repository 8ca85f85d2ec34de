import { readdirSync, readFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every Markdown file under docs/, as paths relative to the repository. */
export function docFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(`${repoRoot}${dir}`, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found;
}

export interface CodeBlock {
  file: string;
  /** The 1-based line of the block's first code line. */
  line: number;
  lang: string;
  /** The words after the language on the fence line, e.g. `nocheck`. */
  flags: string[];
  code: string;
}

/** Every fenced block of a Markdown text. */
export function codeBlocks(file: string, text: string = readFileSync(`${repoRoot}${file}`, 'utf8')): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end === -1) throw new Error(`${file}:${i + 1}: a code block is never closed`);
    blocks.push({
      file,
      line: i + 2,
      lang: open[1]!,
      flags: open[2]!.trim().split(/\s+/).filter(Boolean),
      code: lines.slice(i + 1, end).join('\n'),
    });
    i = end;
  }
  return blocks;
}

/** The block right after `<!-- marker -->` in a Markdown text. */
export function markedBlock(text: string, marker: string): string {
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!match) throw new Error(`no block marked <!-- ${marker} -->`);
  return match[1]!;
}

/**
 * A project directory whose node_modules resolves `pixhook` (and its subpaths) to this repository's built package,
 * through its `exports`, and every other package to the repository's node_modules: how a user's project sees it.
 */
export function linkPackage(dir: string): void {
  mkdirSync(`${dir}/node_modules/.bin`, { recursive: true });
  for (const entry of readdirSync(`${repoRoot}node_modules`)) {
    if (entry === '.bin' || entry === 'pixhook' || entry.startsWith('.')) continue;
    symlinkSync(`${repoRoot}node_modules/${entry}`, `${dir}/node_modules/${entry}`);
  }
  symlinkSync(repoRoot, `${dir}/node_modules/pixhook`);
  symlinkSync(`${repoRoot}bin/pixhook.js`, `${dir}/node_modules/.bin/pixhook`);
}
