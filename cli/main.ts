/** A CLI command: gets its arguments, writes to stdout/stderr, returns the exit code. */
export type Command = (argv: string[]) => Promise<number>;

// Loaded on demand so `pixhook verify` never pays for Express, BullMQ or the emulator.
const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  emulator: {
    summary:
      'emulator [--port <n>] [--api-key <k> --api-secret <s> --webhook-secret <w>] [--variant a|b|short] [--attempts <n>] [--backoff-ms <n>] [--signature-scheme sha256|timestamped --signature-header <name>]',
    load: async () => (await import('./emulator-command.js')).emulatorCommand,
  },
  webhooks: {
    summary:
      'webhooks list | register --url <url> --event <name>... | delete <id>   (PIXHOOK_API_KEY, PIXHOOK_API_SECRET, PIXHOOK_BASE_URL)',
    load: async () => (await import('./webhooks-command.js')).webhooksCommand,
  },
  listen: {
    summary:
      'listen --port <n> --path <p> --secret <s>… [--mode inline|background|durable] [--attempts <n> --backoff-ms <n>] [--redis <url>] [--forward-to <url>] [--signature-scheme …]\n' +
      '      (every --redis: redis://host:port, rediss://…, or a Cluster: redis+cluster://host:port,host:port; PIXHOOK_REDIS_URL)',
    load: async () => (await import('./listen-command.js')).listenCommand,
  },
  worker: {
    summary:
      'worker --redis <url> --handlers <module> [--concurrency n] [--attempts n] [--backoff-ms n]   (also: worker dead-letters | replay | quarantine)',
    load: async () => (await import('./worker-command.js')).workerCommand,
  },
  reconcile: {
    summary:
      'reconcile --handlers <module> [--once | --every 60s] [--redis <url>] [--charge <id>]   (PIXHOOK_API_KEY, PIXHOOK_API_SECRET, PIXHOOK_BASE_URL)',
    load: async () => (await import('./reconcile-command.js')).reconcileCommand,
  },
  verify: {
    summary: 'verify --secret <s> --signature <sig> [--signature-scheme …] [file]   (body from the file or stdin)',
    load: async () => (await import('./verify-command.js')).verifyCommand,
  },
  postgres: {
    summary: 'postgres schema [--table pixhook_inbox] [--schema <name>]   (prints the pixhook/postgres inbox DDL)',
    load: async () => (await import('./postgres-command.js')).postgresCommand,
  },
  send: {
    summary:
      'send <event> --url <url> --secret <s> [--variant a|b|short] [--id] [--amount] [--status] [--body <file>] [--attempts <n>] [--backoff-ms <n>]',
    load: async () => (await import('./send-command.js')).sendCommand,
  },
};

export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipes();
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : commands[name];
  if (!command) {
    const usage = Object.values(commands).map((c) => `  pixhook ${c.summary}`);
    const out = name === undefined || name === '--help' || name === '-h' ? process.stdout : process.stderr;
    out.write(`pixhook — receive, test and operate PIX gateway webhooks\n\nUsage:\n${usage.join('\n')}\n`);
    return name === undefined || name === '--help' || name === '-h' ? 0 : 2;
  }
  const code = await (await command.load())(rest);
  endEvenIfHeld(code);
  return code;
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
