import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';

describe('the api-pix emulator’s certificates', () => {
  it('made in a temp directory of its own: removed when it closes', async () => {
    const emulator = await startEmulator({ profile: 'api-pix' });
    const dir = dirname(emulator.certificates.ca);
    expect(existsSync(emulator.certificates.clientKey)).toBe(true);
    await emulator.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('written to a given directory: left there for the caller', async () => {
    const given = mkdtempSync(join(tmpdir(), 'pixhook-given-certs-'));
    try {
      const emulator = await startEmulator({ profile: 'api-pix', certificatesDir: given });
      await emulator.close();
      expect(existsSync(emulator.certificates.ca)).toBe(true);
    } finally {
      rmSync(given, { recursive: true, force: true });
    }
  });

  it('a start that fails (its port taken) leaves no certificates behind', async () => {
    const first = await startEmulator({ profile: 'api-pix' });
    // tmpdir() reads TMPDIR on each call: the failed start's directory would land in this empty one.
    const tmp = mkdtempSync(join(tmpdir(), 'pixhook-emulator-tmp-'));
    const before = process.env['TMPDIR'];
    process.env['TMPDIR'] = tmp;
    try {
      await expect(startEmulator({ profile: 'api-pix', port: first.port })).rejects.toThrow(/EADDRINUSE/);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (before === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = before;
      rmSync(tmp, { recursive: true, force: true });
      await first.close();
    }
  });
});
