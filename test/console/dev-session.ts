import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const handlers = fileURLToPath(new URL('./fixtures/count-handlers.js', import.meta.url));

export interface DevSession {
  /** The console's URL (ends with `/`). */
  url(): string;
  /** The run's temp directory (removed after the file). */
  dir(): string;
  /** How many times the handlers wrote `line` (`<event> <resource id>`) to the runs file. */
  runs(line: string): number;
  /** The running `pixhook dev` process. */
  process(): RunningCli;
}

/**
 * One real `pixhook dev --handlers count-handlers.js` for the test file, started before its tests and stopped
 * after them; its handlers append one line per run to a file in the run's temp directory.
 */
export function useDevSession(prefix: string, args: readonly string[] = []): DevSession {
  const tempDir = useTempDirs(prefix);
  let dev: RunningCli | undefined;
  let url = '';
  let runsFile = '';
  let dir = '';
  beforeAll(async () => {
    dir = tempDir();
    runsFile = join(dir, 'runs.txt');
    dev = startCli(['dev', ...args, '--port', '0', '--handlers', handlers], { PIXHOOK_RUNS_FILE: runsFile });
    url = (await dev.waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/)$/m, 20_000))[1]!;
  });
  afterAll(async () => {
    await dev?.stop();
  });
  return {
    url: () => url,
    dir: () => dir,
    runs: (line) =>
      existsSync(runsFile)
        ? readFileSync(runsFile, 'utf8')
            .split('\n')
            .filter((l) => l === line).length
        : 0,
    process: () => dev!,
  };
}
