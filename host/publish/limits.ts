// The bounds an uploaded integration version is held to (docs/limits.md#publishing). Constants
// only; the archive reader and the upload route enforce them, never this file.

/** What one upload may cost the host that receives it. */
export interface PublishLimits {
  /** The request body: the gzipped tar as sent. */
  maxArchiveBytes: number;
  /** Everything the archive inflates to, headers and padding included, counted while inflating. */
  maxUnpackedBytes: number;
  /** One file of the archive. */
  maxFileBytes: number;
  /** Files and folders together. */
  maxEntries: number;
  /** An entry's path in bytes of UTF-8, and its depth in folders. */
  maxPathBytes: number;
  maxDepth: number;
  /** How long the whole upload may take to arrive: a slow sender must not hold the host's publishing queue. */
  maxReadMs: number;
}

export const PUBLISH_LIMITS: PublishLimits = {
  maxArchiveBytes: 16 * 1024 * 1024,
  maxUnpackedBytes: 64 * 1024 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
  maxEntries: 5_000,
  maxPathBytes: 1_024,
  maxDepth: 32,
  maxReadMs: 60_000,
};

/** `12 MiB`, `300 KiB`, `17 bytes`: a limit as people read it. */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
