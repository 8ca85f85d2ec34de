import { z } from 'zod';
import { mustBe } from '../../shared/option-checks.js';
import { createDeliveryFaults, type ActiveDeliveryFault, type DeliveryFault } from '../delivery-faults.js';
import { createFaultInjector, type EmulatorFault } from '../fault-injector.js';
import type { ApiPixBodyShape } from './api-pix-deliveries.js';
import { ProblemAnswer } from './problem-answer.js';

/** A request fault of the api-pix profile: the gateway profile's, plus `retryAfter` (seconds) on a 429. */
export interface ApiPixRequestFault extends EmulatorFault {
  retryAfter?: number;
}

/** A delivery fault of the api-pix profile: the gateway profile's actions, plus body shapes and disabling. */
export type ApiPixDeliveryFault =
  DeliveryFault | { action: 'bare-array' | 'devolucoes-object'; times?: number } | { action: 'disable-after'; failures: number };

export const requestFaultSchema = z.strictObject({
  method: z.string().optional(),
  path: z.string().startsWith('/'),
  action: z.enum(['drop-response', 'drop-request', 'status']),
  status: z.int().min(400).max(599).optional(),
  times: z.int().min(1).optional(),
  retryAfter: z.int().min(0).max(86_400).optional(),
});
const deliveryFaultSchema = z.union([
  z.strictObject({
    url: z.string().min(1).optional(),
    action: z.enum(['fail', 'timeout', 'drop', 'delay']),
    status: z.int().min(100).max(599).optional(),
    delayMs: z.int().min(1).max(86_400_000).optional(),
    times: z.int().min(1).optional(),
    forMs: z.number().positive().optional(),
  }),
  z.strictObject({ action: z.enum(['bare-array', 'devolucoes-object']), times: z.int().min(1).optional() }),
  z.strictObject({ action: z.literal('disable-after'), failures: z.int().min(1) }),
]);

interface FaultsConfig {
  now: () => number;
  deliveryFaults: readonly DeliveryFault[];
  disableWebhookAfterFailures: number;
}

/**
 * The run's injected faults: on requests to the PSP (drop, status), and on its webhook deliveries (the
 * gateway's actions, plus the body shapes PSPs really send and disabling a webhook after failures).
 */
export function createApiPixFaults(config: FaultsConfig) {
  const deliveries = createDeliveryFaults(config.now);
  for (const [i, fault] of config.deliveryFaults.entries()) {
    const parsed = deliveryFaultSchema.safeParse(fault);
    if (!parsed.success)
      throw mustBe(`deliveryFaults[${i}]`, 'a delivery fault { action: "fail", "timeout", "drop" or "delay", … }', fault);
    deliveries.add(fault);
  }
  const requests = createFaultInjector();
  const shapeFaults: Array<{ action: ApiPixBodyShape; left: number }> = [];
  let disableAfter = config.disableWebhookAfterFailures;

  function addDeliveryFault(fault: ApiPixDeliveryFault): ActiveDeliveryFault | { action: string } {
    const parsed = deliveryFaultSchema.safeParse(fault);
    if (!parsed.success) {
      throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', parsed.error.issues[0]?.message ?? 'falha inválida');
    }
    const value = parsed.data;
    if (value.action === 'disable-after') {
      disableAfter = value.failures;
      return value;
    }
    if (value.action === 'bare-array' || value.action === 'devolucoes-object') {
      shapeFaults.push({ action: value.action, left: value.times ?? Number.POSITIVE_INFINITY });
      return value;
    }
    return deliveries.add(value as DeliveryFault);
  }

  return {
    deliveries,
    requests,
    addDeliveryFault,
    clearDeliveryFaults(): void {
      deliveries.clear();
      shapeFaults.length = 0;
      disableAfter = config.disableWebhookAfterFailures;
    },
    /** The next delivery's body shape: a shape fault's while it lasts, else the standard `{ pix: [...] }`. */
    takeShape(): ApiPixBodyShape {
      const fault = shapeFaults[0];
      if (!fault) return 'standard';
      if (--fault.left <= 0) shapeFaults.shift();
      return fault.action;
    },
    disableAfter: () => disableAfter,
  };
}

export type ApiPixFaults = ReturnType<typeof createApiPixFaults>;
