import type { ConsoleSandbox } from '../../src/console/index.js';
import { CommandFailure } from './cli-args.js';

/** What `pixhook trigger` plays: a name, the profile whose sandbox plays it, and its steps. */
interface Scenario {
  profile: 'gateway' | 'api-pix';
  about: string;
  steps: ((sandbox: ConsoleSandbox, id: string) => Promise<string>)[];
}

const amountInCents = 1990;
const pay = (sandbox: ConsoleSandbox, id: string) => sandbox.pay(id, {});

export const scenarios: Record<string, Scenario> = {
  payment: { profile: 'gateway', about: 'a charge created and paid', steps: [pay] },
  'wrong-amount': {
    profile: 'gateway',
    about: 'a charge of 1990 paid with 1000 (the book holds it)',
    steps: [(sandbox, id) => sandbox.pay(id, { amountInCents: 1000 })],
  },
  'second-payment': { profile: 'gateway', about: 'a charge paid twice (the book holds the second)', steps: [pay, pay] },
  refund: { profile: 'gateway', about: 'a charge paid, then refunded', steps: [pay, (sandbox, id) => sandbox.refund(id)] },
  dispute: { profile: 'gateway', about: 'a charge paid, then disputed (MED)', steps: [pay, (sandbox, id) => sandbox.dispute(id)] },
  expired: { profile: 'gateway', about: 'a charge that expires unpaid', steps: [(sandbox, id) => sandbox.expire(id)] },
  'api-pix-payment': { profile: 'api-pix', about: 'a cob created and paid (standard API Pix)', steps: [pay] },
  'api-pix-refund': {
    profile: 'api-pix',
    about: 'a cob paid, then a devolução asked (standard API Pix)',
    steps: [pay, (sandbox, id) => sandbox.refund(id)],
  },
};

export const scenarioNames = Object.keys(scenarios);

/** Each step of a scenario played on a sandbox: a charge created first, then the scenario's own steps. */
export async function playScenario(
  sandbox: ConsoleSandbox,
  scenario: Scenario,
  settle: () => Promise<void>,
): Promise<{ charge: string; steps: string[] }> {
  const steps = [await sandbox.createCharge({ amountInCents })];
  // The sandbox lists the newest charge first: the one just created.
  const charge = (await sandbox.charges())[0]?.id;
  if (charge === undefined) throw new CommandFailure('api_error', 'the sandbox created no charge');
  await settle();
  for (const step of scenario.steps) {
    steps.push(await step(sandbox, charge));
    await settle();
  }
  return { charge, steps };
}
