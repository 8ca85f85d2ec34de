import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `pixhook` is linked from the repository root (file:../..), outside this app: let Next see it.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** @type {import('next').NextConfig} */
const nextConfig = {
  turbopack: { root },
  outputFileTracingRoot: root,
};

export default nextConfig;
