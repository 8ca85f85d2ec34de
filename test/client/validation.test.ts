import { describe, expect, it } from 'vitest';
import { checkPixKey, inferPixKeyType, isValidCnpj, isValidCpf, parseErrorBody } from '../../src/client/index.js';

describe('CPF and CNPJ check digits', () => {
  it.each([
    ['52998224725', true],
    ['52998224724', false],
    ['11111111111', false],
    ['5299822472', false],
  ])('CPF %s → %s', (cpf, valid) => expect(isValidCpf(cpf)).toBe(valid));

  it.each([
    ['11222333000181', true],
    ['11222333000182', false],
    ['00000000000000', false],
  ])('CNPJ %s → %s', (cnpj, valid) => expect(isValidCnpj(cnpj)).toBe(valid));
});

describe('PIX key type', () => {
  it.each([
    ['52998224725', 'CPF'],
    ['529.982.247-25', 'CPF'],
    ['11222333000181', 'CNPJ'],
    ['11.222.333/0001-81', 'CNPJ'],
    ['Ana@Example.com', 'EMAIL'],
    ['+5511999998888', 'PHONE'],
    ['7d9f0335-8dcc-4054-9bf9-0dbd61d36906', 'EVP'],
    ['11999998888', undefined],
    ['not a key', undefined],
  ])('%s → %s', (key, type) => expect(inferPixKeyType(key)).toBe(type));

  it('normalizes the key and checks a given type against it', () => {
    expect(checkPixKey('529.982.247-25')).toEqual({ ok: true, type: 'CPF', key: '52998224725' });
    expect(checkPixKey('+5511999998888', 'EMAIL')).toMatchObject({ ok: false });
  });

  it('adds +55 to a bare Brazilian phone only when the type is given as PHONE', () => {
    expect(checkPixKey('11999998888', 'PHONE')).toEqual({ ok: true, type: 'PHONE', key: '+5511999998888' });
    expect(checkPixKey('(11) 3333-4444', 'PHONE')).toEqual({ ok: true, type: 'PHONE', key: '+551133334444' });
    expect(checkPixKey('11999998888')).toMatchObject({ ok: false });
    expect(checkPixKey('123', 'PHONE')).toMatchObject({ ok: false });
  });
});

describe('error bodies', () => {
  it('reads the flat form', () => {
    expect(parseErrorBody(400, { error: 'INVALID_REQUEST', message: 'bad cpf', details: { field: 'document' } })).toEqual({
      code: 'INVALID_REQUEST',
      message: 'bad cpf',
      details: { field: 'document' },
    });
  });

  it('reads the nested form', () => {
    const body = {
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: { retryAfter: 12 } },
      timestamp: 'x',
    };
    expect(parseErrorBody(429, body)).toEqual({ code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: { retryAfter: 12 } });
  });

  it('falls back to the status for bodies that are neither', () => {
    expect(parseErrorBody(502, '<html>')).toEqual({ code: 'SERVER_ERROR', message: 'HTTP 502', details: {} });
  });
});
