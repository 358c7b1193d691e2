// Coalesces IPC messages between the supervisor and a worker: what is sent during one turn of the
// event loop leaves as one message, so a busy host pays one serialization and one system call per
// turn instead of one per dispatch and per result. Order is kept; nothing here inspects messages.

/** Several messages sent during one turn; the receiver handles them in order. */
export interface MessageBatch<M> {
  type: 'batch';
  messages: M[];
}

/**
 * Returns `post(message, now?)`: messages are queued and handed to `write` together once the
 * current turn is over (a lone message goes as itself). With `now`, the queue, this message last,
 * is written at once (an answer whose latency matters more than one write saved, such as a
 * timeout's). `write` decides what a closed channel means.
 */
export function batchedSender<M>(write: (message: M | MessageBatch<M>) => void): (message: M, now?: boolean) => void {
  let queue: M[] = [];
  const flush = (): void => {
    // Empty when a write `now` already took what this turn had queued.
    if (queue.length === 0) return;
    const messages = queue;
    queue = [];
    write(messages.length === 1 ? messages[0] : { type: 'batch', messages });
  };
  return (message, now = false) => {
    const queued = queue.push(message);
    if (now) flush();
    else if (queued === 1) setImmediate(flush);
  };
}

/** Calls `handle` for each message a batch carries, or for the message itself. */
export function unbatch<M>(message: M | MessageBatch<M>, handle: (message: M) => void): void {
  if ((message as { type?: unknown }).type === 'batch' && Array.isArray((message as MessageBatch<M>).messages)) {
    for (const inner of (message as MessageBatch<M>).messages) handle(inner);
  } else handle(message as M);
}
