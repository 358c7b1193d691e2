// Masking an integration's secret values in what it logs: every occurrence, the longest first,
// each line of a multi-line value, never values too short to mask without garbling every line.
import { describe, expect, it } from 'vitest';
import { secretMasker } from '../../../host/secrets/mask.ts';

describe('secretMasker', () => {
  it('replaces every occurrence of every value', () => {
    const mask = secretMasker(['s3cr3t-token', 'client-id-42']);
    expect(mask('token s3cr3t-token, again s3cr3t-token, id client-id-42')).toBe('token ***, again ***, id ***');
  });

  it('masks a value containing another whole', () => {
    const mask = secretMasker(['abcd', 'abcdefgh']);
    expect(mask('x abcdefgh y abcd')).toBe('x *** y ***');
  });

  it('masks each line of a multi-line value as well as the whole', () => {
    const pem = '-----BEGIN KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----';
    const mask = secretMasker([pem]);
    expect(mask(`key: ${pem}`)).toBe('key: ***');
    expect(mask('line MIIEvQIBADANBgkq')).toBe('line ***');
  });

  it('leaves values under four characters alone, and text without any value unchanged', () => {
    const mask = secretMasker(['on', '1', 'abc']);
    expect(mask('turned on 1 abc')).toBe('turned on 1 abc');
    expect(secretMasker(['long-secret'])('nothing here')).toBe('nothing here');
  });
});
