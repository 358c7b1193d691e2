// Guest console text is printed in the operator's terminal and stored in the event log. Control
// characters, ANSI/OSC escapes, carriage returns, bidi overrides and line separators become
// visible escapes, and a newline inside a guest line continues it (indented) instead of starting
// a line of its own, so a guest can neither forge a host log line nor drive the terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../host/common/logger.ts';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { eventsOf, eventually } from '../helpers/lifecycle.ts';

const FORGED = '12:00:00.000 error sandbox worker 0 died (signal SIGKILL) with 3 request(s) in flight; restarting it';
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('log injection', () => {
  it('never lets a guest line start a host log line or carry a control character', async () => {
    expect((await fetch(endpointOf(host, 'log-injection'))).status).toBe(200);
    const lines = host.logs.filter((line) => line.includes('[log-injection'));
    expect(lines.length).toBe(7);
    for (const line of lines) expect(line).not.toMatch(UNSAFE);
    // The forged line is a continuation of the guest's, never a line of its own.
    expect(lines.find((line) => line.includes(FORGED))).toContain(`harmless\n    ${FORGED}`);
    expect(
      host.logs.some(
        (line) => line.startsWith(FORGED) || line.split('\n').some((part) => part.startsWith('12:00:00.000')),
      ),
    ).toBe(false);
    expect(lines.some((line) => line.includes('\\x1b[2J\\x1b[Hscreen cleared'))).toBe(true);
    expect(lines.some((line) => line.includes('\\x1b]0;pwned title\\x07after osc'))).toBe(true);
    expect(lines.some((line) => line.includes('visible\\x0dhidden over it'))).toBe(true);
    expect(lines.some((line) => line.includes('\\u202eevil reversed'))).toBe(true);
    expect(lines.some((line) => line.includes('line\\u2028separator'))).toBe(true);
  });

  it('stores the same escaped text in the event log', async () => {
    const entry = await eventually(async () => {
      const [latest] = (await eventsOf(host, 'log-injection')).filter((event) => event.type === 'fetch');
      expect(latest).toBeDefined();
      return latest;
    });
    for (const { text } of entry.logs) expect(text).not.toMatch(UNSAFE);
    expect(entry.logs.map((line: { text: string }) => line.text)).toContain('\\x1b[31mred\\x1b[0m text');
  });

  it('prints one terminal line per message with continuation lines indented, whatever the message holds', () => {
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      createConsoleLogger().info(`[guest] log: ok\n${FORGED}\u001b[2J`);
    } finally {
      process.stdout.write = original;
    }
    const [text] = written;
    const physical = text.trimEnd().split('\n');
    expect(physical[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} info {2}\[guest\] log: ok$/);
    expect(physical[1]).toBe(`    ${FORGED}\\x1b[2J`);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});
