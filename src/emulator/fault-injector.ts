/** A failure to inject into the next matching request(s), to test what clients do about it. */
export interface EmulatorFault {
  /** e.g. `POST`. Default: any method. */
  method?: string;
  /** The exact path, e.g. `/api/v1/pix/out/pixkey`. */
  path: string;
  /**
   * `drop-response`: handle the request, then cut the connection without answering (the work is done,
   * the client never hears). `drop-request`: cut it without handling. `status`: answer `status`
   * without handling.
   */
  action: 'drop-response' | 'drop-request' | 'status';
  /** For `status`. Default 503. */
  status?: number;
  /** How many matching requests it hits. Default 1. */
  times?: number;
}

export function createFaultInjector() {
  const faults: Array<EmulatorFault & { left: number }> = [];
  return {
    add(fault: EmulatorFault): void {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    /** The fault this request triggers, if any (it is used up). */
    take(method: string, path: string): EmulatorFault | undefined {
      const index = faults.findIndex((f) => f.path === path && (f.method === undefined || f.method.toUpperCase() === method));
      if (index === -1) return undefined;
      const fault = faults[index] as EmulatorFault & { left: number };
      if (--fault.left <= 0) faults.splice(index, 1);
      return fault;
    },
    clear(): void {
      faults.length = 0;
    },
  };
}
