import { describe, expect, it } from 'vitest';
import { documentDigits, sameDocument } from '../../src/book/document-digits.js';

describe('CPF and CNPJ by their digits', () => {
  it.each([
    ['123.456.789-09', '12345678909'],
    ['12345678909', '12345678909'],
    [' 123 456 789 09 ', '12345678909'],
    ['12.345.678/0001-95', '12345678000195'],
    ['12345678000195', '12345678000195'],
  ])('reads %j as %s', (written, digits) => {
    expect(documentDigits(written)).toBe(digits);
  });

  it.each(['1234567890', '123.456.789-0', 'abc.def.ghi-jk', '', '123456789012'])('refuses %j (not 11 or 14 digits)', (written) => {
    expect(documentDigits(written)).toBeUndefined();
  });

  it.each([
    ['12345678909', '123.456.789-09', true],
    ['12345678909', '12345678909', true],
    ['12345678000195', '12.345.678/0001-95', true],
    ['12345678909', '123.456.789-08', false],
    ['12345678909', '12.345.678/0001-95', false], // a CPF is never a CNPJ
    ['12345678909', '***.456.789-**', true], // masked positions prove nothing; the visible ones match
    ['12345678909', '***.456.780-**', false],
    ['12345678909', '***.***.***-**', undefined],
    ['12345678909', undefined, undefined],
    ['12345678909', '', false], // present but empty: never skipped
    ['12345678909', '123.456.789-0X9', false], // a different length
    ['12345678909', '123.abc.789-09', false],
  ] as const)('expected %s, event says %j: %s', (expected, actual, same) => {
    expect(sameDocument(expected, actual)).toBe(same);
  });
});
