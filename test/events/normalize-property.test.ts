import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transactionEventNames, transferEventNames } from '../../src/events/event-names.js';
import { eventKey } from '../../src/events/event-key.js';
import { normalizeEvent } from '../../src/events/normalize-event.js';
import { readStatus } from '../../src/events/read-status.js';
import type { PixEvent } from '../../src/events/event-types.js';

// One secondary field: its source name, what it should hold, and (for objects) the fields inside.
interface FieldSpec {
  key: string;
  type: 'cents' | 'string' | 'object';
  children?: FieldSpec[];
  /** Where a valid value lands in the typed resource. */
  typed?: string[];
}

const str = (key: string, typed?: string[]): FieldSpec => ({ key, type: 'string', ...(typed && { typed }) });
const transactionFields = (variant: 'a' | 'b' | 'short'): FieldSpec[] => [
  { key: variant === 'a' ? 'netAmountInCents' : 'netAmount', type: 'cents', typed: ['netAmountInCents'] },
  { key: 'fees', type: 'cents', typed: ['feesInCents'] },
  {
    key: 'customer',
    type: 'object',
    children: [
      str('name', ['customer', 'name']),
      str('email', ['customer', 'email']),
      str('document', ['customer', 'document']),
      str('phone', ['customer', 'phone']),
    ],
  },
  {
    key: 'pix',
    type: 'object',
    children: [
      str('endToEndId', ['endToEndId']),
      { key: 'payerInfo', type: 'object', children: [str('bank', ['payer', 'bank']), str('account_number', ['payer', 'accountNumber'])] },
    ],
  },
  {
    key: 'refund',
    type: 'object',
    children: [
      { key: 'amount', type: 'cents', typed: ['refund', 'amountInCents'] },
      str('reason', ['refund', 'reason']),
      str('refundedAt', ['refund', 'refundedAt']),
    ],
  },
];
const transferFields: FieldSpec[] = [
  { key: 'netAmount', type: 'cents', typed: ['netAmountInCents'] },
  { key: 'fees', type: 'cents', typed: ['feesInCents'] },
  str('pixKey', ['pixKey']),
  { key: 'pix', type: 'object', children: [str('endToEndId', ['endToEndId']), { key: 'creditorAccount', type: 'object', children: [] }] },
];

// Junk: anything JSON that is not null and not of the expected type.
const jsonJunk = fc.oneof(
  fc.boolean(),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);
const junkFor: Record<FieldSpec['type'], fc.Arbitrary<unknown>> = {
  cents: fc.oneof(
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isSafeInteger(n)),
    fc.constant(2 ** 53 + 2),
    jsonJunk,
  ),
  string: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), jsonJunk),
  object: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.jsonValue(), { maxLength: 3 })),
};
const validFor: Record<'cents' | 'string', fc.Arbitrary<unknown>> = {
  // Net amounts and fees may be negative.
  cents: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  string: fc.string({ maxLength: 12 }),
};

interface Built {
  value: Record<string, unknown>;
  junkPaths: string[];
  valid: { typed: string[]; value: unknown }[];
}

/** Each field: absent, null, a valid value, or junk of the wrong type; objects recurse. */
function fieldsArb(specs: FieldSpec[], base: string): fc.Arbitrary<Built> {
  const one = (spec: FieldSpec): fc.Arbitrary<Built> => {
    const path = `${base}.${spec.key}`;
    const none: Built = { value: {}, junkPaths: [], valid: [] };
    const valid =
      spec.type === 'object'
        ? fieldsArb(spec.children ?? [], path).map((inner): Built => ({
            value: { [spec.key]: inner.value },
            junkPaths: inner.junkPaths,
            valid: inner.valid,
          }))
        : validFor[spec.type].map((v): Built => ({
            value: { [spec.key]: v },
            junkPaths: [],
            valid: spec.typed ? [{ typed: spec.typed, value: v }] : [],
          }));
    return fc.oneof(
      fc.constant(none),
      fc.constant<Built>({ value: { [spec.key]: null }, junkPaths: [], valid: [] }),
      valid,
      junkFor[spec.type].map((junk): Built => ({ value: { [spec.key]: junk }, junkPaths: [path], valid: [] })),
    );
  };
  // Unknown extras (never a known name: every one starts with x_) must never warn.
  const extras = fc.dictionary(
    fc.string({ maxLength: 6 }).map((k) => `x_${k}`),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 3 },
  );
  return fc.tuple(fc.tuple(...specs.map(one)), extras).map(([parts, extra]) => ({
    value: Object.assign({}, extra, ...parts.map((p) => p.value)) as Record<string, unknown>,
    junkPaths: parts.flatMap((p) => p.junkPaths),
    valid: parts.flatMap((p) => p.valid),
  }));
}

const essentials = fc.record({
  id: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })),
  status: fc.string({ maxLength: 12 }),
  amount: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
});

const sample = fc
  .record({
    transfer: fc.boolean(),
    variant: fc.constantFrom('a' as const, 'b' as const, 'short' as const),
    aAmountKey: fc.constantFrom('amountInCents', 'amount'),
    name: fc.nat(),
    essentials,
  })
  .chain((s) => {
    const base = s.variant === 'a' ? 'data' : s.transfer ? 'transfer' : 'transaction';
    return fieldsArb(s.transfer ? transferFields : transactionFields(s.variant), base).map((fields) => ({ ...s, base, fields }));
  });

function get(object: unknown, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], object);
}

describe('normalizeEvent property', () => {
  it('any event with sound essentials and arbitrary secondary junk normalizes, essentials exact, one warning per junk field', () => {
    fc.assert(
      fc.property(sample, (s) => {
        const names = s.transfer ? transferEventNames : transactionEventNames;
        const name = names[s.name % names.length]!;
        const { id, status, amount } = s.essentials;
        const amountKey = s.variant === 'a' ? s.aAmountKey : 'amount';
        const resource = { ...s.fields.value, id, status, [amountKey]: amount };
        const payload =
          s.variant === 'a'
            ? { event: name, timestamp: '2026-11-23T05:00:00Z', data: resource, x_top: [1] }
            : {
                id: 'dlv',
                type: s.transfer ? 'transfer' : 'transaction',
                event: name,
                ...(s.variant === 'b' && { scope: 'user' }),
                [s.base]: resource,
              };

        const result = normalizeEvent(JSON.parse(JSON.stringify(payload)));
        if (!result.ok) throw new Error(result.message);
        const event = result.event as PixEvent;
        const typed = event.kind === 'transaction' ? event.transaction : event.transfer;
        expect(event.name).toBe(name);
        expect(event.variant).toBe(s.variant);
        const read = readStatus(name, status);
        expect([typed.id, typed.status, typed.amountInCents]).toEqual([String(id), read.status, amount]);
        const statusWarning = read.note === undefined ? [] : [`${s.base}.status`];
        expect(event.warnings.map((w) => w.path).sort()).toEqual([...s.fields.junkPaths, ...statusWarning].sort());
        for (const { typed: path, value } of s.fields.valid) expect(get(typed, path)).toEqual(value);
        // The key is built from the essentials (plus refund identity), never from the junk.
        expect(eventKey(event).startsWith(`${name}:`)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});
