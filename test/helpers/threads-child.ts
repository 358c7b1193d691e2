// A child Node process with a given number of idle worker threads, the stand-ins for isolated-vm's
// threads in tests of thread lowering and quota placement; it ends when its stdin closes.
import { spawn, type ChildProcess } from 'node:child_process';

const CHILD = `
const { Worker } = require('node:worker_threads');
const count = Number(process.argv[1]);
let online = 0;
for (let i = 0; i < count; i++) {
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  worker.on('online', () => { if (++online === count) process.stdout.write('online\\n'); });
}
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

/** Starts the child; resolves once all its worker threads run (so its thread list is complete). */
export function startThreadsChild(workers: number): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn(process.execPath, ['-e', CHILD, String(workers)], { stdio: ['pipe', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('online\n')) resolve({ child, pid: child.pid! });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the threads child exited (${code}) before its threads were online`)));
  });
}
