// IPC coalescing between the supervisor and a worker: one turn's messages leave as one write, in
// order; a message sent "now" (a timeout's answer) leaves at once, after everything queued before it.
import { describe, expect, it } from 'vitest';
import { batchedSender, unbatch, type MessageBatch } from '../../../host/sandbox/ipc-batch.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function recorder() {
  const writes: (number | MessageBatch<number>)[] = [];
  return { writes, send: batchedSender<number>((message) => writes.push(message)) };
}

describe('batchedSender', () => {
  it('writes what one turn sends as one batch, in order, once the turn is over', async () => {
    const { writes, send } = recorder();
    send(1);
    send(2);
    send(3);
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual([{ type: 'batch', messages: [1, 2, 3] }]);
  });

  it('writes a lone message as itself', async () => {
    const { writes, send } = recorder();
    send(7);
    await nextTurn();
    expect(writes).toEqual([7]);
  });

  it('writes a message sent now at once, after the messages queued before it, and nothing twice', async () => {
    const { writes, send } = recorder();
    send(1);
    send(2, true);
    expect(writes).toEqual([{ type: 'batch', messages: [1, 2] }]);
    send(3);
    await nextTurn();
    await nextTurn();
    expect(writes).toEqual([{ type: 'batch', messages: [1, 2] }, 3]);
    const received: number[] = [];
    for (const write of writes) unbatch(write, (message) => received.push(message));
    expect(received).toEqual([1, 2, 3]);
  });

  it('writes a lone message sent now as itself', () => {
    const { writes, send } = recorder();
    send(9, true);
    expect(writes).toEqual([9]);
  });
});
