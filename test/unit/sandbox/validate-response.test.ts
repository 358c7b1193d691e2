import { describe, it, expect } from 'vitest';
import { decodeWireAnswer, validateSandboxResponse } from '../../../host/sandbox/validate-response.ts';

const ok = { status: 200, headers: [['content-type', 'text/plain']], body: new Uint8Array([104, 105]) };

describe('validateSandboxResponse', () => {
  it('accepts a well-formed response', () => {
    expect(validateSandboxResponse(ok, 10)).toEqual(ok);
  });

  it.each([
    [{ ...ok, status: 99 }, /invalid status/],
    [{ ...ok, status: 600 }, /invalid status/],
    [{ ...ok, status: '200' }, /invalid status/],
    [{ ...ok, headers: [['bad name', 'x']] }, /invalid header name/],
    [{ ...ok, headers: [['x-injected', 'a\r\nset-cookie: evil=1']] }, /invalid value for header "x-injected"/],
    [{ ...ok, headers: 'nope' }, /invalid headers/],
    [{ ...ok, body: 'text' }, /invalid body/],
    [null, /no response/],
  ])('rejects %j', (value, reason) => {
    expect(validateSandboxResponse(value, 10)).toMatch(reason);
  });

  it('rejects a body over the limit', () => {
    expect(validateSandboxResponse({ ...ok, body: new Uint8Array(11) }, 10)).toMatch(/exceeds 10 bytes/);
  });
});

describe('decodeWireAnswer', () => {
  const meta = { status: 201, statusText: 'Created', headers: [['x-a', '1']], waitUntilPending: true };

  it('rebuilds the answer from its JSON text and body bytes', () => {
    const body = new Uint8Array([1, 2]);
    expect(decodeWireAnswer([JSON.stringify(meta), body])).toEqual({ ...meta, body });
  });

  it.each([
    ['not an array', 'text'],
    ['one element', [JSON.stringify(meta)]],
    ['three elements', [JSON.stringify(meta), new Uint8Array(0), 'extra']],
    ['meta that is not text', [meta, new Uint8Array(0)]],
    ['meta that is not JSON', ['{status: 200', new Uint8Array(0)]],
    ['meta that is an array', ['[200]', new Uint8Array(0)]],
    ['meta that is null', ['null', new Uint8Array(0)]],
  ])('decodes %s to something validation refuses', (_name, value) => {
    expect(validateSandboxResponse(decodeWireAnswer(value), 10)).toEqual(expect.any(String));
  });

  it('keeps a __proto__ key of the meta as plain data, polluting nothing', () => {
    const decoded = decodeWireAnswer([
      '{"__proto__":{"polluted":true},"status":200,"headers":[]}',
      new Uint8Array(0),
    ]) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(validateSandboxResponse(decoded, 10)).toEqual({ status: 200, headers: [], body: new Uint8Array(0) });
  });

  it('still refuses what a guest could smuggle in the headers', () => {
    const smuggled = JSON.stringify({ status: 200, headers: [['x-injected', 'a\r\nset-cookie: evil=1']] });
    expect(validateSandboxResponse(decodeWireAnswer([smuggled, new Uint8Array(0)]), 10)).toMatch(
      /invalid value for header "x-injected"/,
    );
  });
});
