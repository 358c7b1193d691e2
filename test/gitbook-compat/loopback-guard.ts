// Preloaded (NODE_OPTIONS --import) into the host's sandbox workers by the exercise: every name
// resolves to the mock's loopback address, so no DNS query leaves the machine, and any socket aimed
// outside 127.0.0.0/8 (or ::1) is destroyed before it connects. Never loaded by the host itself.

import dns from 'node:dns';
import net from 'node:net';

const target = process.env.GITBOOK_COMPAT_LOOPBACK ?? '';
if (net.isIP(target) !== 4 || !target.startsWith('127.'))
  throw new Error('loopback-guard: GITBOOK_COMPAT_LOOPBACK must be an address in 127.0.0.0/8');

/** Whether `address` is a loopback address (IPv4 127/8, ::1, or IPv4-mapped 127/8). */
function isLoopback(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  return bare.startsWith('127.') || bare === '::1' || bare.startsWith('::ffff:127.');
}

type Callback = (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

function lookup(hostname: string, options: unknown, callback?: Callback): void {
  const done = (typeof options === 'function' ? options : callback) as Callback;
  const all = typeof options === 'object' && options !== null && (options as dns.LookupOptions).all === true;
  const literal = net.isIP(hostname) !== 0;
  const address = literal ? hostname : target;
  const family = literal ? net.isIP(hostname) : 4;
  process.nextTick(() => (all ? done(null, [{ address, family }]) : done(null, address, family)));
}

dns.lookup = lookup as typeof dns.lookup;
dns.promises.lookup = ((hostname: string, options?: dns.LookupOptions) =>
  new Promise((resolve, reject) =>
    lookup(hostname, options ?? {}, (error, address, family) =>
      error ? reject(error) : resolve(Array.isArray(address) ? address : { address: address!, family: family! }),
    ),
  )) as typeof dns.promises.lookup;

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const [first] = args;
  const options = (Array.isArray(first) ? first[0] : first) as
    | { host?: string; path?: string; lookup?: typeof dns.lookup }
    | number
    | string;
  if (typeof options === 'object' && options !== null && typeof options.path !== 'string') {
    const host = options.host ?? 'localhost';
    const refuse = (address: string) =>
      new Error(`loopback-guard: refused a connection to ${host} (${address}): the exercise never leaves 127.0.0.0/8`);
    if (net.isIP(host) !== 0 && !isLoopback(host)) {
      process.nextTick(() => this.destroy(refuse(host)));
      return this;
    }
    if (net.isIP(host) === 0) {
      // Whatever lookup the caller pinned, each address it hands the socket is checked.
      const inner = options.lookup ?? dns.lookup;
      options.lookup = ((name: string, lookupOptions: dns.LookupOptions, callback: Callback) =>
        (inner as unknown as (n: string, o: dns.LookupOptions, c: Callback) => void)(
          name,
          lookupOptions,
          (error, address, family) => {
            const addresses = Array.isArray(address)
              ? address.map((entry) => entry.address)
              : address === undefined
                ? []
                : [address];
            const outside = addresses.find((entry) => !isLoopback(entry));
            if (error === null && outside !== undefined) callback(refuse(outside));
            else callback(error, address, family);
          },
        )) as typeof dns.lookup;
    }
  } else if (typeof options === 'number') {
    const host = typeof args[1] === 'string' ? args[1] : 'localhost';
    if (net.isIP(host) !== 0 && !isLoopback(host)) {
      process.nextTick(() => this.destroy(new Error(`loopback-guard: refused a connection to ${host}`)));
      return this;
    }
  }
  return (connect as (...rest: unknown[]) => net.Socket).apply(this, args);
} as typeof net.Socket.prototype.connect;
