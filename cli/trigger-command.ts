import { redactedUrl } from '../src/shared/redacted-url.js';
import { parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { deliveryLines, hintFor } from './shared/delivery-lines.js';
import type { TriggerAnswer } from './shared/dev-controls.js';
import { defaultDevUrl, devUrlFrom, postDevControl, unreachableExit } from './shared/dev-client.js';
import { devControlPaths } from './shared/dev-controls.js';
import { scenarioNames, scenarios } from './shared/dev-scenarios.js';
import { jsonText } from './shared/json-text.js';

export const triggerHelp: CommandHelp = {
  usage: `trigger <scenario> [--dev ${defaultDevUrl}]`,
  about: `Plays a whole scenario on a running \`pixhook dev\` sandbox (a charge created, then paid, refunded…) and prints each delivery with what the receiver answered. Scenarios: ${scenarioNames
    .map((name) => `${name} (${scenarios[name]!.about})`)
    .join(
      '; ',
    )}. The api-pix-* ones need \`pixhook dev --profile api-pix\`. Exit 0 when every delivery was answered 2xx, 1 when one was not (or a step was refused), 2 on a usage error, 3 when no pixhook dev answers at --dev.`,
  flags: [{ flag: '--dev <url>', meaning: `the sandbox, as pixhook dev prints its URL last (default ${defaultDevUrl})` }],
};

/** `pixhook trigger <scenario>`: the sandbox plays it and answers with the deliveries and their answers. */
export function triggerCommand(argv: string[]): Promise<number> {
  return runCommand('trigger', async () => {
    const { values, positionals } = parseCommandLine(argv, { dev: { type: 'string' } }, true);
    const [name, ...extra] = positionals;
    if (name === undefined) throw new UsageError(`which scenario? one of: ${scenarioNames.join(', ')}`);
    if (extra.length > 0) throw new UsageError(`one scenario at a time, got: ${jsonText(positionals)}`);
    if (!Object.hasOwn(scenarios, name)) throw new UsageError(`unknown scenario ${jsonText(name)}; one of: ${scenarioNames.join(', ')}`);
    const dev = devUrlFrom(values.dev);
    process.stdout.write(`pixhook trigger: ${name} (${scenarios[name]!.about}) on ${redactedUrl(dev.href)}\n`);
    const answer = await postDevControl(dev, devControlPaths.trigger, { scenario: name });
    if (!answer.ok) {
      process.stderr.write(`pixhook trigger: ${answer.why}\n`);
      return unreachableExit;
    }
    if (answer.status !== 200) {
      process.stderr.write(`pixhook trigger: the sandbox refused it: ${jsonText(answer.json['error'])}\n`);
      return answer.status === 409 ? 2 : 1;
    }
    const played = answer.json as unknown as TriggerAnswer;
    const out: string[] = [];
    for (const step of played.steps) out.push(`    ${step}`);
    for (const delivery of played.deliveries) out.push(...deliveryLines(delivery));
    const refused = played.deliveries.find((d) => d.status === 401 || d.status === 403);
    const failed = played.deliveries.filter((d) => d.status >= 300).length;
    out.push(
      played.deliveries.length === 0
        ? 'pixhook trigger: no delivery reached the receiver (a delivery fault in force? the console shows the gateway side)'
        : `pixhook trigger: ${played.deliveries.length} deliver${played.deliveries.length === 1 ? 'y' : 'ies'}, ${failed} not answered 2xx`,
    );
    process.stdout.write(`${out.join('\n')}\n`);
    if (refused !== undefined) process.stderr.write(`${hintFor(refused.status, played.receiver, played.profile)}\n`);
    return failed === 0 && played.deliveries.length > 0 ? 0 : 1;
  });
}
