import { describe, it, expect } from 'vitest';
import { validateSandboxResponse } from '../../../host/sandbox/validate-response.ts';

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
