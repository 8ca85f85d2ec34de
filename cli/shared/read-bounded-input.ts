import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import getRawBody from 'raw-body';
import { PixhookError } from '../../src/index.js';
import { UsageError } from './cli-args.js';
import { jsonText } from './json-text.js';

/** `createReceiver`'s default `maxBodyBytes` (1 MiB); a test checks the two agree. */
export const receiverDefaultMaxBodyBytes = 1024 * 1024;

/** The largest `--max-body-bytes`, as for the receiver's `maxBodyBytes` (1 GiB). */
export const maxBodyBytesLimit = 1024 * 1024 * 1024;

/**
 * A body larger than the limit: exit 1 with one line, after reading at most `limit` + one chunk.
 * Its code is the receiver's reason for the same body, `body_too_large`.
 */
export class BodyTooLargeError extends PixhookError {
  override name = 'BodyTooLargeError';
  constructor(what: string, limit: number) {
    super('body_too_large', `${what} is larger than ${limit} bytes`);
  }
}

/**
 * Reads a stream with `raw-body`: at most `limit` bytes, then it stops reading and fails with
 * `BodyTooLargeError`, whatever the stream is (`/dev/zero`, a pipe that never ends).
 */
async function readBounded(stream: Readable, what: string, limit: number): Promise<Uint8Array> {
  try {
    return new Uint8Array(await getRawBody(stream, { limit }));
  } catch (error) {
    if ((error as { type?: unknown }).type === 'entity.too.large') throw new BodyTooLargeError(what, limit);
    throw error;
  }
}

/** stdin, bounded. */
export function readBoundedStdin(limit: number): Promise<Uint8Array> {
  return readBounded(process.stdin, 'stdin', limit);
}

/** A file named on the command line, bounded; one that cannot be opened is a usage error (exit 2). */
export async function readBoundedFile(flag: string, path: string, limit = maxBodyBytesLimit): Promise<Uint8Array> {
  const stream = createReadStream(path);
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (error) {
    stream.destroy();
    throw new UsageError(`cannot read ${flag} ${jsonText(path)}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  try {
    return await readBounded(stream, `${flag} ${jsonText(path)}`, limit);
  } catch (error) {
    // A directory opens and fails on the first read (EISDIR): still the command line's mistake.
    if (!(error instanceof BodyTooLargeError) && typeof (error as { code?: unknown }).code === 'string') {
      throw new UsageError(`cannot read ${flag} ${jsonText(path)}: ${(error as NodeJS.ErrnoException).code}`);
    }
    throw error;
  } finally {
    stream.destroy();
  }
}

/** `--max-body-bytes`: an integer from 1 to 1 GiB, else the receiver's default. */
export function maxBodyBytesFrom(value: string | undefined): number {
  if (value === undefined) return receiverDefaultMaxBodyBytes;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > maxBodyBytesLimit) {
    throw new UsageError(`--max-body-bytes must be an integer from 1 to ${maxBodyBytesLimit} (1 GiB), got ${jsonText(value)}`);
  }
  return n;
}
