import { readFile } from 'node:fs/promises';

const types: Record<string, string> = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};

// Built into dist/src/console/assets by `npm run build` (esbuild bundles the client and uPlot);
// from the sources (tests, tsx) the built copy is read.
const places = ['./assets/', '../../dist/src/console/assets/'];
const cache = new Map<string, Promise<Uint8Array<ArrayBuffer> | undefined>>();

async function load(name: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  for (const place of places) {
    try {
      return new Uint8Array(await readFile(new URL(`${place}${name}`, import.meta.url)));
    } catch {
      // Not here: try the next place.
    }
  }
  return undefined;
}

/** The client's script or style sheet, served from the package (no CDN), or undefined for any other name. */
export async function consoleAsset(name: string): Promise<{ body: Uint8Array<ArrayBuffer>; type: string } | undefined> {
  const type = types[name];
  if (type === undefined) return undefined;
  let loading = cache.get(name);
  if (loading === undefined) {
    loading = load(name);
    cache.set(name, loading);
  }
  const body = await loading;
  if (body === undefined) {
    cache.delete(name);
    return undefined;
  }
  return { body, type };
}
