// One request to a generated test worker (ours through the host, or workerd's) and its answer as
// a FileOutcome: the driver's results, or a stable one-line reason there are none (status and
// error code, no answer in time), with the volatile details apart.

import { failedOutcome, outcomeFromAnswer, type FileOutcome } from './outcome.ts';

/** One request to a test's worker (ours or workerd's): its JSON answer, or why there is none. */
export async function runOne(
  url: string,
  deadlineMs: number,
  lastLogLine: () => string | undefined = () => undefined,
): Promise<FileOutcome> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(deadlineMs) });
    const body = await response.text();
    if (response.status !== 200) {
      let code = '';
      let detail = body.slice(0, 300);
      try {
        const error = (JSON.parse(body) as { error?: { code?: string; message?: string } }).error;
        if (error?.code) [code, detail] = [` ${error.code}`, error.message ?? ''];
      } catch {
        // not the host's JSON error: keep the text
      }
      const hint = lastLogLine();
      return failedOutcome(
        `answered ${response.status}${code}`,
        elapsed(),
        `${detail}${hint ? `; host log: ${hint.slice(0, 300)}` : ''}`,
      );
    }
    let answer: unknown;
    try {
      answer = JSON.parse(body);
    } catch {
      return failedOutcome('answered 200 with a body that is not JSON', elapsed(), body.slice(0, 300));
    }
    return outcomeFromAnswer(answer, elapsed());
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      return failedOutcome(`no answer within ${Math.round(deadlineMs / 1000)} s`, elapsed());
    return failedOutcome('the request failed', elapsed(), String(error));
  }
}
