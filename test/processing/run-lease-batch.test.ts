import { describe, expect, it } from 'vitest';
import { createRunLeaseBatch } from '../../src/processing/run-lease-batch.js';
import type { OrderLeases, Taken } from '../../src/shared/order-lease.js';

type TakeMany = NonNullable<OrderLeases['takeMany']>;

function recording(answer: (takes: Parameters<TakeMany>[1]) => ReturnType<TakeMany>) {
  const calls: { given: string[]; takes: string[]; ask: unknown }[] = [];
  const gave: string[] = [];
  const takeMany: TakeMany = (given, takes, _ttlMs, ask) => {
    calls.push({ given: given.map((g) => `${g.resource}=${g.fence}`), takes: takes.map((t) => `${t.resource}/${t.owner}`), ask });
    return answer(takes);
  };
  const give = (resource: string, fence: string) => void gave.push(`${resource}=${fence}`);
  return { calls, gave, takeMany, give };
}

const fences = (takes: Parameters<TakeMany>[1]): Taken[] =>
  takes.map((t, i) => (t.resource === 'busy' ? undefined : `${i + 1}:${t.owner}`));

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('a durable worker’s run leases, batched per turn', () => {
  it('the asks of one turn go in one step, with the finished jobs’ leases, and each gets its own answer', async () => {
    const r = recording(async (takes) => fences(takes));
    const batch = createRunLeaseBatch(r.takeMany, r.give, { ttlMs: 1_000, ticketTtlMs: 500, giveLaterMs: 60_000 });
    batch.giveLater('t:done', '7:w0');
    const answers = await Promise.all([batch.ask('t:a', 'w1'), batch.ask('busy', 'w2'), batch.ask('t:c', 'w3')]);
    expect(answers).toEqual(['1:w1', undefined, '3:w3']);
    expect(r.calls).toEqual([{ given: ['t:done=7:w0'], takes: ['t:a/w1', 'busy/w2', 't:c/w3'], ask: { ticketTtlMs: 500 } }]);
    expect(r.gave).toEqual([]);
    // A later turn's ask is a step of its own, without a ticket when the order does not wait.
    const plain = createRunLeaseBatch(r.takeMany, r.give, { ttlMs: 1_000, ticketTtlMs: undefined });
    expect(await plain.ask('t:d', 'w4')).toBe('1:w4');
    expect(r.calls[1]).toEqual({ given: [], takes: ['t:d/w4'], ask: undefined });
  });

  it('at most 100 takes per step: the rest go in the next turn’s', async () => {
    const r = recording((takes) => fences(takes));
    const batch = createRunLeaseBatch(r.takeMany, r.give, { ttlMs: 1_000, ticketTtlMs: undefined });
    const answers = await Promise.all(Array.from({ length: 130 }, (_, i) => batch.ask(`t:${i}`, `w${i}`)));
    expect(r.calls.map((call) => call.takes.length)).toEqual([100, 30]);
    expect(answers[129]).toBe('30:w129');
  });

  it('a step that fails rejects each ask of it and gives the finished jobs’ leases back alone', async () => {
    for (const fail of [
      () => Promise.reject(new Error('redis down')),
      () => {
        throw new Error('redis down');
      },
    ]) {
      const r = recording(fail);
      const batch = createRunLeaseBatch(r.takeMany, r.give, { ttlMs: 1_000, ticketTtlMs: undefined, giveLaterMs: 60_000 });
      batch.giveLater('t:done', '7:w0');
      const asks = [batch.ask('t:a', 'w1'), batch.ask('t:b', 'w2')];
      for (const ask of asks) await expect(ask).rejects.toThrow('redis down');
      expect(r.gave).toEqual(['t:done=7:w0']);
    }
  });

  it('a finished job’s lease no ask follows is given back alone after giveLaterMs', async () => {
    const r = recording((takes) => fences(takes));
    const batch = createRunLeaseBatch(r.takeMany, r.give, { ttlMs: 1_000, ticketTtlMs: undefined, giveLaterMs: 5 });
    batch.giveLater('t:a', '1:w1');
    batch.giveLater('t:b', '1:w2');
    await until(() => r.gave.length === 2);
    expect(r.gave).toEqual(['t:a=1:w1', 't:b=1:w2']);
    expect(r.calls).toEqual([]);
  });

  it('leases that cannot take several at once: every ask goes alone, every lease is given back at once', () => {
    const gave: string[] = [];
    const batch = createRunLeaseBatch(undefined, (resource, fence) => void gave.push(`${resource}=${fence}`), {
      ttlMs: 1_000,
      ticketTtlMs: undefined,
    });
    expect(batch.ask('t:a', 'w1')).toBeUndefined();
    batch.giveLater('t:a', '1:w1');
    expect(gave).toEqual(['t:a=1:w1']);
  });
});
