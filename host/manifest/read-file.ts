// Reads a file of an integration folder that the host does not trust: only a regular file (never
// a FIFO, socket or device, which would block or never end), only up to a byte cap, and judged on
// the opened descriptor so swapping the path between the check and the read changes nothing.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Largest single source file a bundle may include (one large generated or vendored module). */
export const MAX_SOURCE_FILE_BYTES = 16 * 1024 * 1024;

export class UnreadableFileError extends Error {}

const KINDS: [test: (stat: import('node:fs').Stats) => boolean, name: string][] = [
  [(stat) => stat.isFIFO(), 'a FIFO'],
  [(stat) => stat.isCharacterDevice(), 'a character device'],
  [(stat) => stat.isBlockDevice(), 'a block device'],
  [(stat) => stat.isSocket(), 'a socket'],
  [(stat) => stat.isDirectory(), 'a directory'],
];

export async function readRegularFile(file: string, maxBytes: number): Promise<Buffer> {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before fstat can judge it.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw new UnreadableFileError(
        `is ${KINDS.find(([test]) => test(stat))?.[1] ?? 'not a regular file'}, not a regular file`,
      );
    if (stat.size > maxBytes) throw new UnreadableFileError(`is larger than ${maxBytes} bytes`);
    // Read at most one byte past the cap: a file growing while it is read cannot grow the host.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) throw new UnreadableFileError(`is larger than ${maxBytes} bytes`);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
