// Which headers describe one connection rather than the message (RFC 9110 §7.6.1). Pure; they
// must never cross into the sandbox nor come back out of it, because Node owns the connection.

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/** Lower-case names that a `Connection` header value lists: they are hop-by-hop too. */
export function connectionTokens(connectionHeader: string | undefined): Set<string> {
  const tokens = new Set<string>();
  for (const token of (connectionHeader ?? '').split(',')) {
    const name = token.trim().toLowerCase();
    if (name) tokens.add(name);
  }
  return tokens;
}

export function isHopByHop(lowerName: string, listed?: Set<string>): boolean {
  return HOP_BY_HOP.has(lowerName) || lowerName.startsWith('proxy-') || (listed?.has(lowerName) ?? false);
}
