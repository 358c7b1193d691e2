// What the host treats as a provider's callback (RFC 6749 §4.1.2): `code`, or `error` with
// `state`, in the query; for form_post, `state` with `code` or `error` in an urlencoded POST body.
import { describe, expect, it } from 'vitest';
import { findCallback, restoreFormState } from '../../../host/oauth-seal/provider-callback.ts';

const FORM = 'application/x-www-form-urlencoded';
const bytes = (text: string) => new TextEncoder().encode(text);

describe('finding a provider callback', () => {
  it('in the query', () => {
    expect(findCallback('GET', 'code=c&state=s', undefined, null)).toEqual({ where: 'query', states: ['s'] });
    expect(findCallback('GET', 'code=c', undefined, null)).toEqual({ where: 'query', states: [] });
    expect(findCallback('GET', 'error=access_denied&state=s', undefined, null)).toEqual({
      where: 'query',
      states: ['s'],
    });
    expect(findCallback('GET', 'code=c&state=a&state=b', undefined, null)).toEqual({
      where: 'query',
      states: ['a', 'b'],
    });
  });

  it('in an urlencoded POST body (form_post)', () => {
    expect(findCallback('POST', '', `${FORM}; charset=utf-8`, bytes('code=c&state=s'))).toEqual({
      where: 'form',
      states: ['s'],
    });
    expect(findCallback('POST', '', FORM, bytes('error=denied&state=s'))).toEqual({ where: 'form', states: ['s'] });
    expect(findCallback('POST', '', FORM, bytes('code=c'))).toEqual({ where: 'form', states: [] });
  });

  it('not in other requests', () => {
    expect(findCallback('GET', '', undefined, null)).toBeUndefined();
    expect(findCallback('GET', 'error=x', undefined, null)).toBeUndefined();
    expect(findCallback('GET', 'state=s&installation_id=1&setup_action=install', undefined, null)).toBeUndefined();
    // A webhook or slash command posting a form of other fields, or a JSON body, is not a callback.
    expect(findCallback('POST', '', FORM, bytes('command=%2Fdeploy&text=code&error=none'))).toBeUndefined();
    expect(findCallback('POST', '', 'application/json', bytes('{"code":"c","state":"s"}'))).toBeUndefined();
    expect(findCallback('PUT', '', FORM, bytes('code=c&state=s'))).toBeUndefined();
  });

  it('gives the form its own state back, leaving the other fields as written', () => {
    expect(new TextDecoder().decode(restoreFormState(bytes('code=a+b&state=n.s&x=%41'), 'mine 1'))).toBe(
      'code=a+b&state=mine%201&x=%41',
    );
    expect(new TextDecoder().decode(restoreFormState(bytes('code=c&state=n.s'), null))).toBe('code=c');
  });
});
