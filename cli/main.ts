import { readFileSync } from 'node:fs';
import type { CommandHelp } from './shared/command-help.js';

/** A CLI command: gets its arguments, writes to stdout/stderr, returns the exit code. */
type Command = (argv: string[]) => Promise<number>;

/** What each command module gives: the command, and its help. */
interface CommandModule {
  run: Command;
  help: CommandHelp;
}

// Loaded on demand so `pixhook verify` never pays for Express, BullMQ or the emulator, and `--version`
// and `--help` load nothing but this file (test/cli/cli-startup.test.ts checks it).
const commands: Record<string, { about: string; load: () => Promise<CommandModule> }> = {
  listen: {
    about: 'a local receiver: verifies, dedupes and prints every delivery',
    load: async () => {
      const m = await import('./listen-command.js');
      return { run: m.listenCommand, help: m.listenHelp };
    },
  },
  send: {
    about: 'delivers one signed event to a receiver, as the gateway does',
    load: async () => {
      const m = await import('./send-command.js');
      return { run: m.sendCommand, help: m.sendHelp };
    },
  },
  verify: {
    about: 'checks a signature against the exact bytes of a body',
    load: async () => {
      const m = await import('./verify-command.js');
      return { run: m.verifyCommand, help: m.verifyHelp };
    },
  },
  emulator: {
    about: 'serves a local gateway: its API, and webhooks signed and retried as it sends them',
    load: async () => {
      const m = await import('./emulator-command.js');
      return { run: m.emulatorCommand, help: m.emulatorHelp };
    },
  },
  worker: {
    about: 'runs durable jobs from Redis; dead-letters, replay and quarantine tend what failed',
    load: async () => {
      const m = await import('./worker-command.js');
      return { run: m.workerCommand, help: m.workerHelp };
    },
  },
  reconcile: {
    about: 'reads watched charges from the gateway and hands final statuses to your handlers',
    load: async () => {
      const m = await import('./reconcile-command.js');
      return { run: m.reconcileCommand, help: m.reconcileHelp };
    },
  },
  webhooks: {
    about: "lists, registers and deletes the company's webhooks at the gateway",
    load: async () => {
      const m = await import('./webhooks-command.js');
      return { run: m.webhooksCommand, help: m.webhooksHelp };
    },
  },
  book: {
    about: 'shows timelines and held events of the payment book, and releases or dismisses them',
    load: async () => {
      const m = await import('./book-command.js');
      return { run: m.bookCommand, help: m.bookHelp };
    },
  },
  dev: {
    about: 'a PIX sandbox in the browser: emulator, receiver, book, journal and console in one command',
    load: async () => {
      const m = await import('./dev-command.js');
      return { run: m.devCommand, help: m.devHelp };
    },
  },
  console: {
    about: 'serves the console over the journal and book your receivers share (Redis or Postgres)',
    load: async () => {
      const m = await import('./console-command.js');
      return { run: m.consoleCommand, help: m.consoleHelp };
    },
  },
  replay: {
    about: 'replays journaled deliveries by time, event, answer, reason or resource, through dedupe (--dry-run counts)',
    load: async () => {
      const m = await import('./replay-command.js');
      return { run: m.replayCommand, help: m.replayHelp };
    },
  },
  trigger: {
    about: 'plays a whole scenario (payment, refund, dispute…) on a running pixhook dev and prints what the receiver answered',
    load: async () => {
      const m = await import('./trigger-command.js');
      return { run: m.triggerCommand, help: m.triggerHelp };
    },
  },
  resend: {
    about: 'sends one journaled delivery again, by id, through the receiver (Redis, Postgres or a running pixhook dev)',
    load: async () => {
      const m = await import('./resend-command.js');
      return { run: m.resendCommand, help: m.resendHelp };
    },
  },
  postgres: {
    about: "prints the Postgres inbox's DDL for your migration tool",
    load: async () => {
      const m = await import('./postgres-command.js');
      return { run: m.postgresCommand, help: m.postgresHelp };
    },
  },
};

export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipes();
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(overview());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    const { unknownLine } = await import('./shared/command-help.js');
    const line = name.startsWith('-')
      ? unknownLine('flag', name, ['--help', '--version'])
      : unknownLine('command', name, Object.keys(commands));
    process.stderr.write(`pixhook: ${line} (pixhook --help lists them)\n`);
    return 2;
  }
  const loaded = await command.load();
  if (asksForHelp(rest)) {
    const { helpFor, renderHelp } = await import('./shared/command-help.js');
    process.stdout.write(renderHelp(helpFor(loaded.help, name, rest).help));
    return 0;
  }
  const code = await loaded.run(rest);
  endEvenIfHeld(code);
  return code;
}

/** `--help` or `-h` anywhere before a `--`. */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

function overview(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length)) + 2;
  return [
    'pixhook — receive, test and operate PIX gateway webhooks',
    '',
    'usage: pixhook <command> [flags]   (pixhook <command> --help for its flags)',
    '',
    'commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}${c.about}`),
    '',
    'flags:',
    '  -h, --help     prints this help',
    '  -v, --version  prints the version',
    '',
  ].join('\n');
}

/** The version in the package's own package.json: beside `cli/` when run from source, two up from `dist/cli/`. */
function packageVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const json = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (json.name === 'pixhook' && typeof json.version === 'string') return json.version;
    } catch {
      // Not this one: try the next.
    }
  }
  return 'unknown';
}

/**
 * Once a command is done, nothing it opened may keep the process alive: every command closes what
 * it opened, and should a library leave a connection or a timer behind (a Redis client retrying
 * forever), the process still ends 1 s later with the command's exit code. The timer is unref'd, so
 * it never delays a process with nothing left to run.
 */
function endEvenIfHeld(code: number): void {
  setTimeout(() => process.exit(code), 1_000).unref();
}

/**
 * `pixhook listen | head -c 10`: once the reader of stdout (or stderr) is gone, nobody can see the
 * output any more, so the command ends quietly (exit 0) instead of crashing on EPIPE.
 */
function endQuietlyOnClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
    });
  }
}
