import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { refuseIgnoredWithProcessing } from '../../src/intake/receiver-options.js';
import { fromDrizzle, postgresInbox, postgresWatchStore } from '../../src/postgres/index.js';
import { checkedIsolation, keyOf } from '../../src/postgres/transactional.js';
import { inboxSchemaSql } from '../../src/postgres/inbox-schema.js';
import { redisQuarantine } from '../../src/redis/redis-quarantine.js';
import { parseRedisUrl } from '../../src/redis/redis-url.js';
import { redisUrlFrom } from '../../cli/shared/redis-backend.js';
import { resolveEmulatorOptions } from '../../src/emulator/emulator-options.js';
import { checkSignatureOption } from '../../src/emulator/delivery-signature.js';
import { startEmulator } from '../../src/emulator/index.js';
import { resolveReconcilerOptions } from '../../src/reconcile/reconciler-options.js';
import { checkFunction, checkIdentifier, checkObject, checkOneOf, mustBe } from '../../src/shared/option-checks.js';

// Issue 21: "One option-validation module … One message format: `pixhook: <option> must be …`."
// Every construction-time refusal starts with "pixhook: `<option>`", so a user finds the option at once.

const root = fileURLToPath(new URL('../../', import.meta.url));
const format = /^pixhook: `[^`]+` /;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The opening of each `new PixhookConfigError(` argument in src/, as written. */
function configErrorOpenings(): { where: string; opening: string }[] {
  return sourceFiles(join(root, 'src')).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/new PixhookConfigError\(\s*/g)].map((match) => ({
      where: `${relative(root, file)}:${text.slice(0, match.index).split('\n').length}`,
      opening: text.slice(match.index + match[0].length, match.index + match[0].length + 60),
    }));
  });
}

// The one message whose option names are a list worked out at run time; checked below by running it.
const checkedAtRunTime = new Set(['src/intake/receiver-options.ts']);

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PixhookConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a PixhookConfigError');
}

async function rejectionOf(run: () => Promise<unknown>): Promise<string> {
  const error: unknown = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PixhookConfigError);
  return (error as Error).message;
}

describe('option messages: one format', () => {
  it('every `new PixhookConfigError(` in src/ opens with "pixhook: `<option>`" (a guard against drift)', () => {
    const openings = configErrorOpenings();
    expect(openings.length).toBeGreaterThan(20);
    const drifted = openings.filter(({ where, opening }) => {
      if (checkedAtRunTime.has(where.replace(/:\d+$/, '')) && opening.startsWith('`pixhook: ${names}')) return false;
      return !/^(['`])pixhook: (\\`|`)/.test(opening);
    });
    expect(drifted).toEqual([]);
  });

  it('the run-time list of ignored options still opens with "pixhook: `"', () => {
    expect(messageOf(() => refuseIgnoredWithProcessing({ mode: 'inline' }))).toMatch(format);
  });

  it('the generic checks in option-checks speak the one format', () => {
    expect(mustBe('thing', 'a widget', 3).message).toBe('pixhook: `thing` must be a widget, got 3');
    expect(messageOf(() => checkOneOf('variant', 'c', ['a', 'b', 'short']))).toBe(
      'pixhook: `variant` must be "a", "b" or "short", got the string "c"',
    );
    expect(checkOneOf('variant', 'b', ['a', 'b'])).toBe('b');
    expect(messageOf(() => checkFunction('onError', 1))).toBe('pixhook: `onError` must be a function, got 1');
    expect(messageOf(() => checkObject('policy', [], 'an object'))).toBe('pixhook: `policy` must be an object, got an array');
    expect(messageOf(() => checkIdentifier('table', 'x; DROP TABLE y'))).toBe(
      'pixhook: `table` must be a plain identifier (letters, digits, _; at most 63), got a string',
    );
    expect(checkIdentifier('table', 'a'.repeat(63))).toBe('a'.repeat(63));
    expect(() => checkIdentifier('table', 'a'.repeat(64))).toThrow(PixhookConfigError);
  });
});

describe('option messages: the refusals that spoke another format', () => {
  it('emulator: `variant` and `signature`', () => {
    expect(messageOf(() => resolveEmulatorOptions({ variant: 'c' as never }))).toBe(
      'pixhook: `variant` must be "a", "b" or "short", got the string "c"',
    );
    expect(messageOf(() => checkSignatureOption({ scheme: 'hmac' } as never))).toMatch(
      /^pixhook: `signature` must be \{ scheme: "sha256" \}/,
    );
  });

  it('emulator: a delivery fault names the option and the field', async () => {
    const message = await rejectionOf(() => startEmulator({ deliveryFaults: [{ action: 'explode' as never }] }));
    expect(message).toMatch(/^pixhook: `deliveryFaults\[0\]\.action` must be a delivery fault /);
    expect(message).toMatch(/got the string "explode"$/);
  });

  it('pixhook/reconcile: `client` and `processing`', () => {
    const processing = { accept: async () => ({ status: 'accepted' }) };
    expect(messageOf(() => resolveReconcilerOptions({ client: {}, processing } as never))).toMatch(
      /^pixhook: `client\.getTransaction` must be a function/,
    );
    const client = { getTransaction: async () => ({}) };
    expect(messageOf(() => resolveReconcilerOptions({ client, processing: {} } as never))).toMatch(
      /^pixhook: `processing\.accept` must be a function/,
    );
    expect(messageOf(() => resolveReconcilerOptions({ client, processing, variant: 'c' } as never))).toBe(
      'pixhook: `variant` must be "a", "b" or "short", got the string "c"',
    );
  });

  it('pixhook/postgres: pool, names, isolation, Drizzle and an unknown event with no key', () => {
    expect(messageOf(() => postgresInbox({} as never))).toMatch(/^pixhook: `pool` must be a pg Pool .*, got undefined$/);
    expect(messageOf(() => postgresInbox({ pool: {} as never }))).toMatch(
      /^pixhook: `pool` must be a pg Pool, a connected pg Client, or a SqlDatabase .*, got an object$/,
    );
    expect(messageOf(() => inboxSchemaSql({ schema: 'a"b' }))).toMatch(/^pixhook: `schema` must be a plain identifier/);
    expect(messageOf(() => postgresWatchStore({ pool: {} as never, prefix: 'bad-prefix' }))).toBe(
      'pixhook: `prefix` must be a plain identifier (letters, digits, _; at most 41), got the string "bad-prefix"',
    );
    expect(messageOf(() => checkedIsolation('snapshot' as never))).toBe(
      'pixhook: `isolation` must be "read committed", "repeatable read" or "serializable", got the string "snapshot"',
    );
    expect(messageOf(() => fromDrizzle({ $client: {} } as never))).toMatch(
      /^pixhook: `db\.\$client` must be a pg Pool or a postgres\.js instance/,
    );
    expect(messageOf(() => keyOf({ dedupeKey: () => 'k' }, { kind: 'unknown' } as never))).toMatch(
      /^pixhook: `context\.key` must be a non-empty string/,
    );
  });

  it('pixhook/redis: quarantine `ttlMs` and `maxEntries`, before the client is touched', () => {
    expect(messageOf(() => redisQuarantine({ client: {} as never, ttlMs: 0 }))).toBe(
      'pixhook: `ttlMs` must be an integer from 1 to 31622400000 (366 days), got 0',
    );
    expect(messageOf(() => redisQuarantine({ client: {} as never, maxEntries: 1.5 }))).toMatch(
      /^pixhook: `maxEntries` must be an integer from 1 to \d+, got 1\.5$/,
    );
  });

  it('redis URLs name the option they came in (default `url`; the CLI says `--redis`), never the password', () => {
    expect(messageOf(() => parseRedisUrl('http://u:secret@x'))).toBe(
      'pixhook: `url` must be a redis://, rediss://, redis+cluster:// or rediss+cluster:// URL, got "http://u:***@x"',
    );
    expect(messageOf(() => parseRedisUrl('redis://u:secret@a:1,b:2', '--redis'))).toBe(
      'pixhook: `--redis` must use redis+cluster:// or rediss+cluster:// to list several hosts, got "redis://u:***@a:1,b:2"',
    );
    expect(messageOf(() => parseRedisUrl('redis+cluster://a:1/3', 'connection'))).toMatch(
      /^pixhook: `connection` must name database 0 or none/,
    );
    expect(messageOf(() => parseRedisUrl('redis://a:99999'))).toMatch(/^pixhook: `url` must list each host as host or host:port/);
    expect(() => redisUrlFrom('http://u:secret@x', true)).toThrow(
      /^`--redis` must be a redis:\/\/, rediss:\/\/, redis\+cluster:\/\/ or rediss\+cluster:\/\/ URL, got "http:\/\/u:\*\*\*@x"$/,
    );
  });
});
