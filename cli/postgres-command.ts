import { inboxSchemaSql } from '../src/postgres/inbox-schema.js';
import { PixhookError } from '../src/index.js';
import type { Command } from './main.js';
import { jsonText } from './shared/json-text.js';

const usage = 'usage: pixhook postgres schema [--table <name>] [--schema <name>]';

/** `pixhook postgres schema`: prints the inbox's DDL for the merchant's own migration tool. */
export const postgresCommand: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (sub !== 'schema') {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const options: { table?: string; schema?: string } = {};
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const [name, inline] = flag.includes('=') ? [flag.slice(0, flag.indexOf('=')), flag.slice(flag.indexOf('=') + 1)] : [flag, undefined];
    if (name !== '--table' && name !== '--schema') {
      process.stderr.write(`unknown option ${jsonText(flag)}\n${usage}\n`);
      return 2;
    }
    const value = inline ?? rest[++i];
    if (value === undefined) {
      process.stderr.write(`${name} needs a value\n${usage}\n`);
      return 2;
    }
    options[name === '--table' ? 'table' : 'schema'] = value;
  }
  try {
    process.stdout.write(`${inboxSchemaSql(options)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof PixhookError || error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
};
