// How a worker's units send to the supervisor: the batched sender worker.ts makes (ipc-batch.ts).
// Types only: it never sends anything itself.

import type { FromWorker } from '../messages.ts';

/** Sends to the supervisor, coalescing what one turn of the event loop sends; `now` flushes at once. */
export type SendToSupervisor = (message: FromWorker, now?: boolean) => void;
