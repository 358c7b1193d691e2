// A minimal reader of server-sent events (the host's own event stream): splits a byte stream into
// messages of `event` and `data`, skipping comments. Only what `npm run logs` needs: no `retry`.

export interface SseMessage {
  event: string;
  data: string;
}

export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  // A chunk may end between the \r and \n of one line break: that \r waits for the next chunk.
  let carriage = '';
  for await (const chunk of body) {
    let text = carriage + decoder.decode(chunk, { stream: true });
    carriage = text.endsWith('\r') ? '\r' : '';
    if (carriage !== '') text = text.slice(0, -1);
    buffer += text.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}
