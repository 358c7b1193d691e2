// A YAML syntax error is reported at its real cause when that can be told (the quote or bracket
// that opened what never closes), else where the parser stopped; always with a line to frame,
// except a line under `secrets:`.
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { describeYamlError, openingAt } from '../../../host/manifest/yaml-error.ts';

/** What js-yaml says about `text`, through describeYamlError. */
function problem(text: string) {
  try {
    load(text);
  } catch (error) {
    const { reason, mark } = error as { reason: string; mark: { line: number; column: number } };
    return describeYamlError(text, reason, mark);
  }
  throw new Error('the text parsed');
}

describe('YAML syntax errors', () => {
  it('names the line where an unterminated double quote opened, not the next key', () => {
    const found = problem(
      'name: greeter\ntitle: Greeter\ndescription: "Greets people\norganization: acme\nvisibility: public\n',
    );
    expect(found.at).toEqual({ line: 3, column: 14, lineText: 'description: "Greets people' });
    expect(found.message).toBe(
      'invalid YAML: the double-quoted value that starts here is never closed (the parser read on to line 4: ' +
        'deficient indentation); end it with "',
    );
  });

  it('names an unterminated single quote and an unclosed flow list the same way', () => {
    expect(problem("name: greeter\ntitle: 'Greeter\ndescription: x\n").at).toMatchObject({ line: 2, column: 8 });
    const list = problem('name: x\nscopes: [space:content:read\nsummary: s\n');
    expect(list.at).toMatchObject({ line: 2, column: 9 });
    expect(list.message).toMatch(/the \[ list that starts here is never closed .*; end it with \]$/);
  });

  it('is not fooled by escaped quotes, apostrophes in plain values, comments or block scalars', () => {
    const text = 'a: "say \\"hi\\""\nb: it\'s fine # don\'t\nc: |\n  "quoted text\nd: [1, 2]\ne: ok\n';
    expect(openingAt(text, 6, 1)).toBeUndefined();
  });

  it('falls back to where the parser stopped, with that line', () => {
    const found = problem('name: greeter\n  title: Greeter\n');
    expect(found.message).toBe('invalid YAML: bad indentation of a mapping entry');
    expect(found.at).toEqual({ line: 2, column: 8, lineText: '  title: Greeter' });
  });

  it('never quotes a line under secrets (it may hold a literal value)', () => {
    const found = problem('name: x\nsecrets:\n  token: "abc123\nsummary: s\n');
    expect(found.at).toMatchObject({ line: 3, lineText: '' });
  });
});
