// Group commit for a store's inserts: a call made while a write is in flight waits, and joins the
// next write with every call made meanwhile, so a busy host pays one round trip for many callers
// and an idle one waits for nobody. Writes never overlap and keep the callers' order. Never looks
// inside the items beyond their size; the write must be safe to repeat (items carry their own ids).

export interface GroupedWritesOptions<I> {
  /** Most items, and most bytes (by `sizeOf`), in one write; a caller with more is written alone. */
  maxItems: number;
  maxBytes: number;
  sizeOf(item: I): number;
  /**
   * Whether a failed group's error may be one caller's items' fault (a constraint or a bad value):
   * such a group is written again caller by caller, so one caller's rows never fail another's.
   * Any other error (the database unreachable) fails the group's callers, and those who queued
   * while it was tried, at once: they would wait out the same outage one group after another.
   */
  mayBeOneCallers(error: unknown): boolean;
}

interface Waiting<I, O> {
  items: readonly I[];
  bytes: number;
  resolve(results: O[]): void;
  reject(error: unknown): void;
}

/** `write(items)` returns one result per item, in order; each caller gets its own items' results. */
export function groupedWrites<I, O>(
  write: (items: I[]) => Promise<O[]>,
  options: GroupedWritesOptions<I>,
): (items: readonly I[]) => Promise<O[]> {
  let queue: Waiting<I, O>[] = [];
  let writing = false;

  const alone = async (caller: Waiting<I, O>): Promise<void> => {
    try {
      caller.resolve(await write([...caller.items]));
    } catch (error) {
      caller.reject(error);
    }
  };

  const oneCallers = (error: unknown): boolean => {
    try {
      return options.mayBeOneCallers(error);
    } catch {
      return false;
    }
  };

  /** Settles every caller of the group, whatever happens; never rejects. */
  const writeGroup = async (group: Waiting<I, O>[]): Promise<void> => {
    let results: O[];
    try {
      results = await write(group.length === 1 ? [...group[0].items] : group.flatMap((caller) => caller.items));
    } catch (error) {
      if (!oneCallers(error)) {
        const failed = [...group, ...queue];
        queue = [];
        for (const caller of failed) caller.reject(error);
      } else if (group.length === 1) group[0].reject(error);
      else for (const caller of group) await alone(caller);
      return;
    }
    let at = 0;
    for (const caller of group) {
      caller.resolve(results.slice(at, at + caller.items.length));
      at += caller.items.length;
    }
  };

  /** The callers at the head of the queue that fit one write (at least one). */
  const nextGroup = (): Waiting<I, O>[] => {
    let count = queue[0].items.length;
    let bytes = queue[0].bytes;
    let taken = 1;
    for (; taken < queue.length; taken++) {
      const next = queue[taken];
      if (count + next.items.length > options.maxItems || bytes + next.bytes > options.maxBytes) break;
      count += next.items.length;
      bytes += next.bytes;
    }
    const group = queue.slice(0, taken);
    queue = queue.slice(taken);
    return group;
  };

  const pump = async (): Promise<void> => {
    writing = true;
    try {
      while (queue.length > 0) await writeGroup(nextGroup());
    } finally {
      writing = false;
    }
  };

  return (items) =>
    new Promise<O[]>((resolve, reject) => {
      let bytes = 0;
      for (const item of items) bytes += options.sizeOf(item);
      queue.push({ items, bytes, resolve, reject });
      if (!writing) void pump();
    });
}
