import { describe, expectTypeOf, it } from 'vitest';
import { createProcessing, type Processing } from '../../src/index.js';

describe('Processing lifecycle (issue 28 §6) and the delivery context kept internal (issue 32 §1)', () => {
  it('close takes an optional bound and resolves whether everything settled', () => {
    const processing = createProcessing();
    expectTypeOf(processing.close).parameters.toEqualTypeOf<[options?: { timeoutMs?: number }]>();
    expectTypeOf(processing.close()).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(processing.drain).returns.toEqualTypeOf<Promise<boolean>>();
  });

  it('the receiver-only parts (journal writer, acceptDelivery) are not on the public type', () => {
    const processing: Processing = createProcessing();
    // @ts-expect-error the journal writer is internal (the receiver reads it through deliveryProcessingOf)
    void processing.journalWriter;
    // @ts-expect-error a delivery's context is internal; callers pass AcceptOptions
    void processing.acceptDelivery;
    expectTypeOf(processing.accept)
      .parameter(1)
      .toEqualTypeOf<
        { waitUntil?: (promise: Promise<unknown>) => void; body?: string; trace?: Record<string, string>; replayOf?: string } | undefined
      >();
  });
});
