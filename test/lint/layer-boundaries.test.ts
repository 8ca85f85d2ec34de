import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The import rules of the README's Architecture section, proven to fail a wrong-way import.
const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer boundaries (eslint no-restricted-imports)', () => {
  it.each([
    ['src/processing/probe.ts', "import { createReceiver } from '../intake/create-receiver.js';"],
    ['src/events/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    ['src/shared/probe.ts', "import { eventKey } from '../events/event-key.js';"],
    ['src/intake/probe.ts', "import { createExpressMiddleware } from '../../adapters/express/index.js';"],
    ['src/processing/probe.ts', "import { main } from '../../cli/main.js';"],
    ['adapters/express/probe.ts', "import { createProcessing } from '../../src/processing/create-processing.js';"],
    ['adapters/node/probe.ts', "import { main } from '../../cli/main.js';"],
    ['src/emulator/probe.ts', "import { createClient } from '../client/create-client.js';"],
    ['src/redis/probe.ts', "import { guardStore } from '../dedupe/guard-store.js';"],
    ['cli/probe-command.ts', "import { listenCommand } from './listen-command.js';"],
  ])('%s: %s fails lint', async (file, source) => {
    expect(await restricted(file, `${source}\nexport {};\n`)).toHaveLength(1);
  });

  it.each([
    ['adapters/express/probe.ts', "import { createReceiver } from '../../src/index.js';"],
    ['src/redis/probe.ts', "import { createProcessing } from '../index.js';"],
    ['src/intake/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    ['src/emulator/probe.ts', "import { normalizeEvent } from '../index.js';"],
  ])('%s: %s is allowed', async (file, source) => {
    expect(await restricted(file, `${source}\nexport {};\n`)).toEqual([]);
  });
});
