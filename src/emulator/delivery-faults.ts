/**
 * A failure of webhook deliveries, to test what a receiver (and a reconciler) does when the sender
 * cannot reach it. Each attempt that matches is hit, until `times` attempts or `forMs` have passed.
 */
export interface DeliveryFault {
  /** The exact delivery URL. Default: every URL. */
  url?: string;
  /**
   * `fail`: the attempt gets `status` without reaching the receiver. `timeout`: no answer, so the
   * attempt fails after `deliveryTimeoutMs`. `drop`: the connection is cut before any answer. `delay`:
   * the attempt reaches the receiver `delayMs` late, so a later event can arrive first (keep `delayMs`
   * under `deliveryTimeoutMs`, which counts the delay).
   */
  action: 'fail' | 'timeout' | 'drop' | 'delay';
  /** For `fail`. Default 500. */
  status?: number;
  /** For `delay` (and only for it): how late the attempt is sent, in milliseconds. */
  delayMs?: number;
  /** How many attempts it hits. Default: no count (see `forMs`; with neither, until removed). */
  times?: number;
  /** For how long from now, in milliseconds. Default: no time bound. */
  forMs?: number;
}

/** A fault in force, as `GET /_emulator/delivery-faults` lists it. */
export interface ActiveDeliveryFault extends DeliveryFault {
  id: string;
  /** Attempts it hit so far. */
  hits: number;
  /** Epoch milliseconds when it stops, if time-bound. */
  until?: number;
}

export function createDeliveryFaults(now: () => number) {
  let faults: ActiveDeliveryFault[] = [];
  let sequence = 0;
  const live = (f: ActiveDeliveryFault) => (f.times === undefined || f.hits < f.times) && (f.until === undefined || now() < f.until);

  return {
    add(fault: DeliveryFault): ActiveDeliveryFault {
      const active: ActiveDeliveryFault = {
        ...fault,
        id: `flt_${String(++sequence).padStart(4, '0')}`,
        hits: 0,
        ...(fault.forMs !== undefined && { until: now() + fault.forMs }),
      };
      faults.push(active);
      return active;
    },
    /** The fault that hits this attempt, if any (it counts the hit). */
    take(url: string): ActiveDeliveryFault | undefined {
      faults = faults.filter(live);
      const fault = faults.find((f) => f.url === undefined || f.url === url);
      if (fault) fault.hits++;
      return fault;
    },
    list(): ActiveDeliveryFault[] {
      faults = faults.filter(live);
      return faults.map((f) => ({ ...f }));
    },
    remove(id: string): boolean {
      const before = faults.length;
      faults = faults.filter((f) => f.id !== id);
      return faults.length < before;
    },
    clear(): void {
      faults = [];
    },
  };
}

export type DeliveryFaults = ReturnType<typeof createDeliveryFaults>;
