// Units of the sandbox worker on their own, without a worker process: forwarding platform API
// calls to the supervisor, and the quiet window background work waits for.
import { describe, expect, it } from 'vitest';
import type { FromWorker } from '../../../host/sandbox/messages.ts';
import { PlatformApiForwarder } from '../../../host/sandbox/worker/platform-api.ts';
import { QuietWindow } from '../../../host/sandbox/worker/quiet-window.ts';

describe('PlatformApiForwarder', () => {
  it('knows the platform API only once configured, by origin', () => {
    const api = new PlatformApiForwarder(() => undefined);
    expect(api.isPlatformApi('http://127.0.0.1:4000/v1/spaces')).toBe(false);
    api.configure('http://127.0.0.1:4000/v1');
    expect(api.isPlatformApi('http://127.0.0.1:4000/v1/spaces')).toBe(true);
    expect(api.isPlatformApi('http://127.0.0.1:4001/v1/spaces')).toBe(false);
    expect(api.isPlatformApi('not a url')).toBe(false);
  });

  it('sends each call to the supervisor and settles it with the answer to its id, once', async () => {
    const sent: FromWorker[] = [];
    const api = new PlatformApiForwarder((message) => sent.push(message));
    const request = { id: 1, url: 'http://127.0.0.1:4000/v1/spaces', method: 'GET', headers: [], body: null } as never;
    const first = api.call('alpha', request);
    const second = api.call('beta', request);
    expect(sent.map((message) => message.type === 'api-request' && [message.id, message.integration])).toEqual([
      [1, 'alpha'],
      [2, 'beta'],
    ]);
    api.answered(2, { ok: false, code: 'TypeError', message: 'two' });
    api.answered(1, { ok: false, code: 'TypeError', message: 'one' });
    api.answered(1, { ok: false, code: 'TypeError', message: 'again' });
    expect(await first).toEqual({ ok: false, code: 'TypeError', message: 'one' });
    expect(await second).toEqual({ ok: false, code: 'TypeError', message: 'two' });
  });
});

describe('QuietWindow', () => {
  it('is quiet from the start, and for a few ms after each activity', () => {
    const quiet = new QuietWindow();
    expect(quiet.waitMs()).toBe(0);
    quiet.touch();
    expect(quiet.waitMs()).toBeGreaterThan(0);
    quiet.touch(performance.now() - 1_000);
    expect(quiet.waitMs()).toBe(0);
  });
});
