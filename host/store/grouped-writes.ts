// Group commit for a store's inserts: a call made while a write is in flight waits, and joins the
// next write with every call made meanwhile, so a busy host pays one round trip for many callers
// and an idle one waits for nobody. Writes never overlap and keep the callers' order. Never looks
// inside the items; the write must be safe to repeat (items carry their own ids).

export interface GroupedWritesOptions {
  /** Most items in one write (a caller with more is written alone). */
  maxItems: number;
  /**
   * Whether a failed group's error may be one caller's items' fault (a constraint or a bad value):
   * such a group is written again caller by caller, so one caller's rows never fail another's.
   * Any other error (the database unreachable) fails every caller of the group at once.
   */
  mayBeOneCallers(error: unknown): boolean;
}

interface Waiting<I, O> {
  items: readonly I[];
  resolve(results: O[]): void;
  reject(error: unknown): void;
}

/** `write(items)` returns one result per item, in order; each caller gets its own items' results. */
export function groupedWrites<I, O>(
  write: (items: I[]) => Promise<O[]>,
  options: GroupedWritesOptions,
): (items: readonly I[]) => Promise<O[]> {
  let queue: Waiting<I, O>[] = [];
  let writing = false;

  const alone = (caller: Waiting<I, O>): Promise<void> => write([...caller.items]).then(caller.resolve, caller.reject);

  const writeGroup = async (group: Waiting<I, O>[]): Promise<void> => {
    if (group.length === 1) return alone(group[0]);
    let results: O[];
    try {
      results = await write(group.flatMap((caller) => caller.items));
    } catch (error) {
      if (!options.mayBeOneCallers(error)) {
        for (const caller of group) caller.reject(error);
        return;
      }
      for (const caller of group) await alone(caller);
      return;
    }
    let at = 0;
    for (const caller of group) {
      caller.resolve(results.slice(at, at + caller.items.length));
      at += caller.items.length;
    }
  };

  const pump = async (): Promise<void> => {
    writing = true;
    try {
      while (queue.length > 0) {
        let count = queue[0].items.length;
        let taken = 1;
        while (taken < queue.length && count + queue[taken].items.length <= options.maxItems) {
          count += queue[taken].items.length;
          taken++;
        }
        const group = queue.slice(0, taken);
        queue = queue.slice(taken);
        await writeGroup(group);
      }
    } finally {
      writing = false;
    }
  };

  return (items) =>
    new Promise<O[]>((resolve, reject) => {
      queue.push({ items, resolve, reject });
      if (!writing) void pump();
    });
}
