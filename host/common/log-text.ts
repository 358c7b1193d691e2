// Makes text from outside the host safe to print in a log line and to store: control characters
// (C0 but tab and newline, DEL, C1), bidirectional overrides and Unicode line separators become
// visible escapes (`\x1b`, `\u202e`), so guest output can neither drive the operator's terminal
// (ANSI/OSC) nor forge lines. Pure.

// C0 except \t and \n, DEL and C1, bidi embeddings/overrides/isolates, LINE and PARAGRAPH SEPARATOR.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function sanitizeLogText(text: string): string {
  return text.replace(UNSAFE, escape);
}

/** Newlines inside one message become indented continuation lines: never a line of its own. */
export function continuationLines(text: string): string {
  return text.replaceAll('\n', '\n    ');
}
