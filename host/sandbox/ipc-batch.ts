// Coalesces IPC messages between the supervisor and a worker: what is sent during one turn of the
// event loop leaves as one message, so a busy host pays one serialization and one system call per
// turn instead of one per dispatch and per result. Order is kept; nothing here inspects messages.

/** Several messages sent during one turn; the receiver handles them in order. */
export interface MessageBatch<M> {
  type: 'batch';
  messages: M[];
}

/**
 * Returns `post(message)`: messages are queued and handed to `write` together once the current
 * turn is over (a lone message goes as itself). `write` decides what a closed channel means.
 */
export function batchedSender<M>(write: (message: M | MessageBatch<M>) => void): (message: M) => void {
  let queue: M[] = [];
  const flush = (): void => {
    const messages = queue;
    queue = [];
    write(messages.length === 1 ? messages[0] : { type: 'batch', messages });
  };
  return (message) => {
    if (queue.push(message) === 1) setImmediate(flush);
  };
}

/** Calls `handle` for each message a batch carries, or for the message itself. */
export function unbatch<M>(message: M | MessageBatch<M>, handle: (message: M) => void): void {
  if ((message as { type?: unknown }).type === 'batch' && Array.isArray((message as MessageBatch<M>).messages)) {
    for (const inner of (message as MessageBatch<M>).messages) handle(inner);
  } else handle(message as M);
}
