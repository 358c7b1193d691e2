// Judges what an integration answered to a `ui_render` event: a ContentKit element or a
// completion, an ExposableError to pass on, or a failure. Pure; must never forward a 5xx body
// (it can carry the integration's internals) nor let invalid ContentKit reach a client.

import { HostError } from '../common/errors.ts';
import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import type { DispatchOutcome } from '../dispatch/event-dispatcher.ts';
import { validateRenderOutput } from '../contentkit/validate.ts';
import { isPlainObject } from './json-body.ts';
import { jsonTextTooDeep, tooDeepMessage } from '../common/json-depth.ts';
import { bodyBuffer } from './send-sandbox-response.ts';

export interface RenderAnswer {
  status: number;
  body: unknown;
}

function badRender(what: string): HostError {
  return new HostError('ERR_SANDBOX_BAD_RESPONSE', `the integration's render answer ${what}`);
}

function parseJson(response: SandboxResponse): { ok: true; value: unknown } | { ok: false } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bodyBuffer(response));
  } catch {
    return { ok: false };
  }
  // Whatever the integration answered is re-serialized and validated (recursively) below.
  if (jsonTextTooDeep(text)) throw badRender(tooDeepMessage());
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function checkElementAnswer(answer: Record<string, unknown>): void {
  if (!('element' in answer)) throw badRender('has type "element" but no "element"');
  if (!isPlainObject(answer.props)) throw badRender('has no "props" object');
  if (!isPlainObject(answer.state)) throw badRender('has no "state" object');
  checkContentKit(answer);
}

/** The whole answer against GitBook's ContentKitRenderOutput; pointers are into the answer (`/element/…`). */
function checkContentKit(answer: Record<string, unknown>): void {
  const result = validateRenderOutput(answer);
  if (!result.valid) {
    const first = result.errors[0];
    throw new HostError(
      'ERR_CONTENTKIT_INVALID',
      `the component's output is not valid ContentKit: ${first.pointer || '/'}: ${first.message}`,
      result.errors,
    );
  }
}

export function judgeRenderResponse(
  { response, verdict }: Pick<DispatchOutcome, 'response' | 'verdict'>,
  componentId: string,
): RenderAnswer {
  if (verdict === 'component-not-found') {
    throw new HostError('ERR_COMPONENT_NOT_FOUND', `component "${componentId}" not found`);
  }
  const { status } = response;
  if (status >= 500) throw new HostError('ERR_SANDBOX_BAD_RESPONSE', 'the integration failed to render');
  const parsed = parseJson(response);
  if (status >= 400 && status < 500) {
    // An ExposableError: its status and JSON body are the integration's message to the caller.
    if (!parsed.ok) throw badRender(`has status ${status} and a body that is not JSON`);
    return { status, body: parsed.value };
  }
  if (status < 200 || status > 299) throw badRender(`has the unexpected status ${status}`);
  if (!parsed.ok) throw badRender('is not JSON');
  const answer = parsed.value;
  if (!isPlainObject(answer)) throw badRender('is not a JSON object');
  if (answer.type === 'element') checkElementAnswer(answer);
  else if (answer.type === 'complete') checkContentKit(answer);
  else throw badRender('has a "type" other than "element" or "complete"');
  return { status: 200, body: answer };
}
