import { allSchemasSql } from './shared/postgres-schemas.js';
import { parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import { unknownLine, type CommandHelp } from './shared/command-help.js';

const schemaHelp: CommandHelp = {
  usage: 'postgres schema [--table pixhook_inbox] [--schema <name>]',
  about:
    'Prints the DDL of every table pixhook/postgres uses on stdout (the inbox with its order leases, the payment book, the journal, the watch list, the reconciler cursors), for your own migration tool.',
  flags: [
    { flag: '--table <name>', meaning: "the inbox table's name (default pixhook_inbox)" },
    { flag: '--schema <name>', meaning: 'the Postgres schema of the inbox, the book and the journal (default: the search_path)' },
  ],
};

export const postgresHelp: CommandHelp = {
  usage: 'postgres schema [flags]',
  about: 'Postgres helpers for the pixhook/postgres store.',
  flags: [],
  subcommands: { schema: schemaHelp },
};

/** `pixhook postgres schema`: prints the inbox's DDL for the merchant's own migration tool. */
export function postgresCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  return runCommand(sub === 'schema' ? 'postgres schema' : 'postgres', async () => {
    if (sub !== 'schema') {
      throw new UsageError(sub === undefined ? 'postgres needs a subcommand: schema' : unknownLine('subcommand', sub, ['schema']));
    }
    const { values } = parseCommandLine(rest, { table: { type: 'string' }, schema: { type: 'string' } });
    process.stdout.write(`${allSchemasSql(values)}\n`);
    return 0;
  });
}
