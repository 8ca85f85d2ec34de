import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// `npm ci` on the oldest Node the README supports prints no EBADENGINE: every locked package (the dev
// tools included) accepts it. light-my-request 6.8 (through fastify) pulled cookie@2, which wants Node 22.
// semver is in every npm tree (here through the coverage tools); its two functions are all this needs.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};
const { engines } = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
};

describe('package-lock.json', () => {
  it('locks no package that refuses the oldest supported Node', () => {
    const oldest = semver.minVersion(engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.optional)
      .flatMap(([path, entry]) => {
        const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return wanted !== undefined && !semver.satisfies(oldest, wanted) ? [`${path}@${entry.version}: node ${wanted}`] : [];
      });
    expect(oldest).toBe('20.19.0');
    expect(refusing).toEqual([]);
  });
});
