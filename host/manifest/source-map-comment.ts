// Keeps esbuild from following a `//# sourceMappingURL=` comment in an integration's file: esbuild
// opens the file such a comment names itself (any path, a FIFO, /dev/zero), past the contained
// reader (read-file.ts). Pure; the comments the author wrote stay as they are.

/**
 * The last source map comment of a file is the one esbuild takes. A URL with a scheme other than
 * `file:` is one it never opens (nor fetches), so the build maps the file's own positions.
 */
const NOT_FOLLOWED = '\n//# sourceMappingURL=ih-not-followed:input-source-maps';

/**
 * The bytes esbuild parses for a JavaScript or TypeScript file: the file as read, then a source map
 * comment that names nothing on disk. Appended on a line of its own, not substituted, so no line
 * moves, a comment's look-alike inside a string is never touched, and a comment the file ends in
 * cannot run into it; if the appended line were not a comment (the file ending inside a string,
 * template or block comment), the file would not parse and esbuild follows nothing.
 */
export function withInputSourceMapIgnored(bytes: Uint8Array): Buffer {
  return Buffer.concat([bytes, Buffer.from(NOT_FOLLOWED)]);
}

/**
 * A position esbuild reports in the bytes it parsed, in the file as read: one in the appended line
 * (an error at the end of the file) is the file's end. Lines 1-based, columns in bytes, as esbuild's.
 */
export function positionInFile(bytes: Uint8Array, line: number, column: number): { line: number; column: number } {
  let lines = 1;
  let lastLineStart = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines++;
      lastLineStart = i + 1;
    }
  }
  const end = { line: lines, column: bytes.length - lastLineStart };
  return line > end.line || (line === end.line && column > end.column) ? end : { line, column };
}
