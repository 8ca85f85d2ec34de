import type { ConsoleSandbox, SandboxFault } from '../../src/console/index.js';

type FaultAction = Parameters<ConsoleSandbox['injectFault']>[0]['action'];

const effects: Record<FaultAction, string> = { fail: 'answer 500', timeout: 'time out', drop: 'drop' };

/** The sandbox page's line for a delivery fault put in force, e.g. `Fault flt_1 in force: webhooks answer 500 for 2 attempts.` */
export function faultInForce(id: string, what: string, action: FaultAction, times: number | undefined): string {
  const span = times === undefined ? ' until cleared' : ` for ${String(times)} attempt${times === 1 ? '' : 's'}`;
  return `Fault ${id} in force: ${what} ${effects[action]}${span}.`;
}

/** The newest 20 of a list, newest first: what the page's tables show. */
export function newestFirst<T>(list: readonly T[]): T[] {
  return list.slice(-20).reverse();
}

/** An emulator's delivery faults, by the three names every profile gives them. */
interface FaultKit {
  inject(fault: { action: FaultAction; times?: number }): { id: string };
  clear(): void;
  list(): readonly SandboxFault[];
}

/**
 * The page's fault controls over an emulator's own (the gateway's and every PSP profile's): `what` names
 * what fails in the lines (`deliveries`, `webhooks`).
 */
export function sandboxFaultControls(kit: FaultKit, what: string): Pick<ConsoleSandbox, 'faults' | 'injectFault' | 'clearFaults'> {
  return {
    faults: async () =>
      kit.list().map((f) => ({ id: f.id, action: f.action, hits: f.hits, ...(f.times !== undefined && { times: f.times }) })),
    async injectFault({ action, times }) {
      const fault = kit.inject({ action, ...(times !== undefined && { times }) });
      return faultInForce(fault.id, what, action, times);
    },
    async clearFaults() {
      kit.clear();
      return 'Every delivery fault is cleared.';
    },
  };
}
