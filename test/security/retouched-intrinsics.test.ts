// The intrinsics V8 extends when it deserializes a context from the runtime's startup snapshot
// (Promise, RegExp, Error, Math, DataView.prototype, the iterator prototypes) stay extensible in the
// snapshot; what only they reach is frozen there already, they and what V8 added by the bootstrap.
// A guest finds all of it frozen before its first line runs, cannot change a method, a prototype,
// an accessor or an added member (Promise.try, RegExp.escape, Math.f16round, getFloat16, ...),
// and its next dispatch sees the built-ins behave as built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

const ask = async (step?: string) => {
  const response = await fetch(`${endpointOf(host, 'retouched-intrinsics')}${step ? `?step=${step}` : ''}`);
  expect(response.status).toBe(200);
  return response.json();
};

const AS_BUILT = {
  then: 2,
  try: 3,
  exec: 'bb',
  escape: 'string',
  isError: true,
  max: 5,
  f16round: 1.5,
  getUint8: 7,
  map: [10, 20],
};

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures/retouched-intrinsics'] });
});
afterAll(() => host?.close());

describe('retouched intrinsics', () => {
  it('are frozen with what they reach and what V8 added, before any guest code', async () => {
    const report = await ask();
    expect(report.missing).toEqual([]);
    expect(report.unfrozen).toEqual([]);
    expect(report.errorExtensible).toBe(false);
    expect(report.behaviour).toEqual(AS_BUILT);
  });

  it('refuse every change a guest tries', async () => {
    expect((await ask('tamper')).changed).toEqual([]);
  });

  it('behave as built in the next dispatch', async () => {
    const report = await ask();
    expect(report.unfrozen).toEqual([]);
    expect(report.behaviour).toEqual(AS_BUILT);
  });

  it('leave the host and its neighbours answering', async () => {
    await expectHostHealthy(host);
  });
});
