// Turns the host's positional primitives (install()'s and the snapshot bootstrap's arguments, in
// the order of PRIMITIVE_NAMES) into one object of plain functions. Async primitives arrive as
// isolated-vm References and are applied here with copied arguments and a promised, copied result.
// Once a guest may hold shared memory, every call's arguments are copied out of it first
// (shared-memory.ts). The References stay in these closures; nothing here is reachable from guest code.
import { ASYNC_PRIMITIVES, PRIMITIVE_NAMES, type BridgePrimitives, type PrimitivesListed } from './contract.ts';
import { crossing, sharedMemoryInUse } from './shared-memory.ts';

/** How isolated-vm shows a host Reference inside the isolate: only the call the async primitives need. */
interface HostReference {
  apply(receiver: undefined, args: unknown[], options: object): Promise<unknown>;
}

const APPLY_OPTIONS = { arguments: { copy: true }, result: { promise: true, copy: true } };
const listed: PrimitivesListed = true;

/**
 * The arguments as they may cross: isolated-vm would hand a view on a SharedArrayBuffer to the host
 * as the same memory, which the guest could change while the host reads it, even with `copy`.
 */
function crossingArguments(call: unknown[]): unknown[] {
  if (!sharedMemoryInUse()) return call;
  for (let index = 0; index < call.length; index++) call[index] = crossing(call[index]);
  return call;
}

export type RawPrimitives = { [K in keyof BridgePrimitives]: (...args: Parameters<BridgePrimitives[K]>) => unknown };

export function bindPrimitives(args: readonly unknown[]): RawPrimitives {
  void listed;
  if (args.length !== PRIMITIVE_NAMES.length)
    throw new TypeError(`the runtime expects ${PRIMITIVE_NAMES.length} primitives, got ${args.length}`);
  const bound = Object.create(null) as Record<string, (...call: unknown[]) => unknown>;
  for (let index = 0; index < PRIMITIVE_NAMES.length; index++) {
    const name = PRIMITIVE_NAMES[index];
    const value = args[index];
    if (ASYNC_PRIMITIVES.includes(name)) {
      const reference = value as HostReference;
      bound[name] = (...call: unknown[]) => reference.apply(undefined, crossingArguments(call), APPLY_OPTIONS);
    } else {
      const fn = value as (...call: unknown[]) => unknown;
      bound[name] = (...call: unknown[]) => fn(...crossingArguments(call));
    }
  }
  return bound as unknown as RawPrimitives;
}
