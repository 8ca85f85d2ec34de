import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
});
