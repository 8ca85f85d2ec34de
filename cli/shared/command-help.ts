import { escapeControls } from '../../src/shared/escape-controls.js';

/** One flag in a command's help: `--port <n>` and its meaning, bounds and default in one phrase. */
export interface FlagHelp {
  flag: string;
  meaning: string;
}

/** What `pixhook <command> [<subcommand>…] --help` prints, in one format for every command. */
export interface CommandHelp {
  /** The usage line after `pixhook `: `send <event> --url <url> [flags]`. */
  usage: string;
  /** One sentence: what the command does. */
  about: string;
  flags: FlagHelp[];
  /** Environment variables the command reads: name → meaning. */
  env?: Record<string, string>;
  subcommands?: Record<string, CommandHelp>;
}

const helpFlag: FlagHelp = { flag: '-h, --help', meaning: 'prints this help' };

/** The help of the deepest subcommand `args` names (`quarantine list --json` → quarantine's list), and its path. */
export function helpFor(help: CommandHelp, command: string, args: string[]): { help: CommandHelp; path: string } {
  let current = help;
  let path = command;
  for (const arg of args) {
    const next = current.subcommands?.[arg];
    if (next === undefined) break;
    current = next;
    path = `${path} ${arg}`;
  }
  return { help: current, path };
}

/** The help text: usage line, what it does, one line per flag, then subcommands and environment. */
export function renderHelp(help: CommandHelp): string {
  const flags = [...help.flags, helpFlag];
  const subcommands = Object.values(help.subcommands ?? {});
  const env = Object.entries(help.env ?? {});
  const width = Math.max(...flags.map((f) => f.flag.length), ...env.map(([name]) => name.length)) + 2;
  const lines = [
    `usage: pixhook ${help.usage}`,
    '',
    help.about,
    '',
    'flags:',
    ...flags.map((f) => `  ${f.flag.padEnd(width)}${f.meaning}`),
  ];
  if (subcommands.length > 0) lines.push('', 'subcommands (each has --help):', ...subcommands.map((s) => `  pixhook ${s.usage}`));
  if (env.length > 0) lines.push('', 'environment:', ...env.map(([name, meaning]) => `  ${name.padEnd(width)}${meaning}`));
  return `${lines.join('\n')}\n`;
}

/** The candidate closest to `given` (a typo: edit distance at most a third of its length, at least 2), if any. */
function closestMatch(given: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(given.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(given.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** `unknown command 'lisen' — did you mean 'listen'?`, or without the question when nothing is close. */
export function unknownLine(what: string, given: string, candidates: readonly string[]): string {
  const match = closestMatch(given, candidates);
  return `unknown ${what} '${escapeControls(given)}'${match === undefined ? '' : ` — did you mean '${match}'?`}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
