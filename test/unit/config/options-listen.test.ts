// The listeners' address (`host`, `--bind`): an IP literal or `localhost`, refused otherwise with a
// message naming the flag; a wildcard bind still prints and hands out a URL a client can open.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LISTEN_HOST, resolveOptions } from '../../../host/config/options.ts';
import { parseHostFlags } from '../../../host/cli/host-flags.ts';
import { urlHostOf } from '../../../host/assembly/http-listener.ts';

describe('the listen address option', () => {
  it('defaults to loopback', () => {
    expect(DEFAULT_LISTEN_HOST).toBe('127.0.0.1');
    expect(resolveOptions({}).host).toBe('127.0.0.1');
  });

  it.each(['0.0.0.0', '::', '::1', '127.0.0.2', '10.1.2.3', 'fe80::1', 'localhost'])('accepts %s', (address) => {
    expect(resolveOptions({ host: address }).host).toBe(address);
  });

  it.each(['example.com', '127.0.0.256', '1.2.3', '[::1]', '0.0.0.0:8787', ' 127.0.0.1'])(
    'refuses %j with ERR_OPTIONS_INVALID naming --bind',
    (address) => {
      expect(() => resolveOptions({ host: address })).toThrow(
        new RegExp(
          `invalid host options: --bind \\(host\\) expects an IP address or "localhost", got ` +
            `"${address.replace(/[[\].]/g, '\\$&')}"`,
        ),
      );
    },
  );

  it('says to drop the brackets of an IPv6 address', () => {
    expect(() => resolveOptions({ host: '[::1]' })).toThrow(/without brackets/);
  });

  it('refuses an empty address', () => {
    expect(() => resolveOptions({ host: '' })).toThrow(/ERR_OPTIONS_INVALID|invalid host options: \/host/);
  });

  it('comes from --bind, and is absent without it', () => {
    expect(parseHostFlags(['--bind', '0.0.0.0']).host).toBe('0.0.0.0');
    expect(parseHostFlags([]).host).toBeUndefined();
  });

  it(
    "takes the last --bind: the Dockerfile and the systemd unit give 0.0.0.0, an operator's later flag " +
      'overrides it',
    () => {
      expect(parseHostFlags(['--bind', '0.0.0.0', '--bind', '127.0.0.1']).host).toBe('127.0.0.1');
    },
  );
});

describe('the URL of a listener', () => {
  it('names the bound address, bracketing IPv6', () => {
    expect(urlHostOf('127.0.0.2')).toBe('127.0.0.2');
    expect(urlHostOf('::1')).toBe('[::1]');
    expect(urlHostOf('localhost')).toBe('localhost');
  });

  it('names loopback for a wildcard bind, which no client can connect to', () => {
    expect(urlHostOf('0.0.0.0')).toBe('127.0.0.1');
    expect(urlHostOf('::')).toBe('[::1]');
    expect(urlHostOf('0:0:0:0:0:0:0:0')).toBe('[::1]');
  });
});
