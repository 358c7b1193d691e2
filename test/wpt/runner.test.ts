// The WPT runner's own logic, without WPT_DIR: META parsing, the chained scripts' scoping, the
// harness switch, the expectations file's checks, comparison and rewriting, and the area figures.
import { describe, expect, it } from 'vitest';
import { areaOf, selects } from './areas.ts';
import {
  compareRun,
  formatExpectations,
  parseExpectations,
  ruleReason,
  updateExpectations,
  type Expectations,
} from './expectations.ts';
import { outcomeFromAnswer, uniqueNames, type FileOutcome } from './outcome.ts';
import { figures } from './report.ts';
import { fetchedLiterals, parseMeta, shellHarness } from './suite.ts';
import { chainSource } from './worker-script.ts';

function outcome(subtests: [string, string][], loadError: string | null = null): FileOutcome {
  return {
    loadError,
    harness: null,
    subtests: subtests.map(([name, status]) => ({ name, status, message: `${status} message` })),
    timedOut: false,
    durationMs: 1,
  };
}

function runChain(sources: string[]): void {
  // As the guest driver does: the first function takes location and fetch, each returns the next.
  let step: unknown = new Function('location', 'fetch', chainSource(sources));
  for (let index = 0; typeof step === 'function'; index++) {
    step =
      index === 0
        ? (step as (...args: unknown[]) => unknown).call(globalThis, { search: '?x' }, 'the fetch')
        : (step as () => unknown).call(globalThis);
  }
}

describe('the chained scripts of a test file', () => {
  it('let each script see the declarations of the scripts before it, and this as the global object', () => {
    const g = globalThis as Record<string, unknown>;
    try {
      runChain([
        'function helper() { return 41; } var counter = 1; const fixed = 1;',
        'counter += fixed; globalThis.__wptChain = [helper(), counter, this === globalThis];',
      ]);
      expect(g.__wptChain).toEqual([41, 2, true]);
    } finally {
      delete g.__wptChain;
    }
  });

  it('keep a script\'s own "use strict" and give the first one the test\'s location and fetch', () => {
    const g = globalThis as Record<string, unknown>;
    try {
      runChain([
        'globalThis.__wptSloppy = (function () { return this === undefined; })(); globalThis.__wptParams = ' +
          '[location.search, fetch];',
        '"use strict";\nglobalThis.__wptStrict = (function () { return this === undefined; })();',
      ]);
      expect([g.__wptSloppy, g.__wptStrict, g.__wptParams]).toEqual([false, true, ['?x', 'the fetch']]);
    } finally {
      for (const key of ['__wptSloppy', '__wptStrict', '__wptParams']) delete g[key];
    }
  });

  it('survive a script that ends in a line comment', () => {
    expect(
      () => new Function('location', 'fetch', chainSource(['var a = 1 // no newline', 'a // again'])),
    ).not.toThrow();
  });
});

describe('reading a WPT file', () => {
  it('takes the META lines at the top only', () => {
    const source =
      '// META: global=window,worker\n// META: script=/common/utils.js\n\n// META: timeout=long\ntest(() => ' +
      '{});\n// META: script=late.js\n';
    expect(parseMeta(source)).toEqual([
      { key: 'global', value: 'window,worker' },
      { key: 'script', value: '/common/utils.js' },
      { key: 'timeout', value: 'long' },
    ]);
  });

  it('finds the relative URLs a test fetches literally, not absolute ones', () => {
    expect(
      fetchedLiterals([
        'fetch("resources/a.json").then(x)',
        "fetch_json('../b.json')",
        'fetch(`data:,x`)',
        'fetch(url)',
      ]),
    ).toEqual(['resources/a.json', '../b.json']);
  });

  it('switches testharness.js to its shell environment, and refuses a harness it does not recognise', () => {
    expect(shellHarness('a;\nvar test_environment = create_test_environment();\nb;')).toBe(
      'a;\nvar test_environment = new ShellTestEnvironment();\nb;',
    );
    expect(() => shellHarness('var env = detect();')).toThrow(/exactly one/);
  });
});

describe("the driver's answer", () => {
  it('is checked, and repeated subtest names get distinct keys', () => {
    const answer = {
      loadError: null,
      harness: { status: 'OK', message: null },
      subtests: [
        { name: 'a', status: 'PASS', message: null },
        { name: 'a', status: 'FAIL', message: 'm' },
      ],
    };
    expect(outcomeFromAnswer(answer, 5).subtests.map((subtest) => subtest.name)).toEqual(['a', 'a (#2)']);
    expect(outcomeFromAnswer({ subtests: [{ name: 1 }] }, 5).loadError).toBe('a subtest in the answer is malformed');
    expect(outcomeFromAnswer('nonsense', 5).loadError).toBe("the answer is not the driver's results");
    expect(uniqueNames([{ name: 'x', status: 'PASS', message: null }])).toHaveLength(1);
  });
});

const EXPECTED: Expectations = {
  rules: [{ message: 'needs a server', reason: 'no server here' }],
  files: {
    'a.any.js': { subtests: 3, failing: [{ reason: 'not implemented', subtests: ['two'] }] },
    'b.any.js': { subtests: 0, loadError: { message: 'x.js: ReferenceError: self is not defined', reason: 'no self' } },
  },
};

describe('comparing a run with the expectations', () => {
  it('finds nothing when the run is what they say', () => {
    const run = new Map([
      [
        'a.any.js',
        outcome([
          ['one', 'PASS'],
          ['two', 'FAIL'],
          ['three', 'PASS'],
        ]),
      ],
      ['b.any.js', outcome([], 'x.js: ReferenceError: self is not defined')],
    ]);
    expect(compareRun(EXPECTED, run, ['a.any.js', 'b.any.js'])).toEqual([]);
  });

  it('names a subtest that stopped passing, one that started, a changed count and a load error that went away', () => {
    const run = new Map([
      [
        'a.any.js',
        outcome([
          ['one', 'TIMEOUT'],
          ['two', 'PASS'],
          ['three', 'PASS'],
          ['four', 'PASS'],
        ]),
      ],
      ['b.any.js', outcome([['only', 'PASS']])],
    ]);
    expect(compareRun(EXPECTED, run).map((mismatch) => `${mismatch.file}: ${mismatch.problem}`)).toEqual([
      'a.any.js: TIMEOUT: one: TIMEOUT message',
      'a.any.js: passes now (expected to fail: not implemented): two',
      'a.any.js: reports 4 subtests, expected 3',
      'b.any.js: loads now (expected to fail with: x.js: ReferenceError: self is not defined)',
      'b.any.js: reports 1 subtests, expected 0',
    ]);
  });

  it(
    'names an expected failure that is no longer reported, a ' + 'file it does not know and one no longer in the suite',
    () => {
      const run = new Map([
        [
          'a.any.js',
          outcome([
            ['one', 'PASS'],
            ['three', 'PASS'],
            ['new', 'PASS'],
          ]),
        ],
        ['c.any.js', outcome([['one', 'PASS']])],
      ]);
      expect(
        compareRun(EXPECTED, run, ['a.any.js', 'c.any.js']).map((mismatch) => `${mismatch.file}: ${mismatch.problem}`),
      ).toEqual([
        'a.any.js: no longer reported (was expected to fail): two',
        'c.any.js: not in the expectations file',
        'b.any.js: in the expectations file but not in tests.txt',
      ]);
    },
  );
});

describe('rewriting the expectations', () => {
  it("keeps known reasons, takes a rule's reason, and without --reason writes nothing for the rest", () => {
    const run = new Map([
      [
        'a.any.js',
        outcome([
          ['one', 'FAIL'],
          ['two', 'FAIL'],
          ['three', 'PASS'],
        ]),
      ],
    ]);
    run.get('a.any.js')!.subtests[0].message = 'this needs a server, sorry';
    const { next, needsReason } = updateExpectations(EXPECTED, run);
    expect(needsReason).toEqual([]);
    expect(next.files['a.any.js']).toEqual({
      subtests: 3,
      failing: [
        { reason: 'no server here', subtests: ['one'] },
        { reason: 'not implemented', subtests: ['two'] },
      ],
    });
    expect(next.files['b.any.js']).toEqual(EXPECTED.files['b.any.js']);
    const unexplained = updateExpectations(
      EXPECTED,
      new Map([['b.any.js', outcome([['fresh', 'FAIL']], 'x.js: TypeError: other')]]),
    );
    expect(unexplained.needsReason).toEqual([
      { file: 'b.any.js', loadError: 'x.js: TypeError: other', subtests: ['fresh'] },
    ]);
    const explained = updateExpectations(
      EXPECTED,
      new Map([['b.any.js', outcome([['fresh', 'FAIL']], 'x.js: TypeError: other')]]),
      'because',
    );
    expect(explained.next.files['b.any.js']).toEqual({
      subtests: 1,
      loadError: { message: 'x.js: TypeError: other', reason: 'because' },
      failing: [{ reason: 'because', subtests: ['fresh'] }],
    });
  });

  it("drops passing files' failures and files no longer in the suite, and reads back what it writes", () => {
    const { next } = updateExpectations(EXPECTED, new Map([['a.any.js', outcome([['one', 'PASS']])]]), undefined, [
      'a.any.js',
    ]);
    expect(next.files).toEqual({ 'a.any.js': { subtests: 1 } });
    expect(parseExpectations(formatExpectations(next))).toEqual(next);
  });

  it('applies a rule to load errors only when it names no subtest or status', () => {
    const rules = [
      { subtest: 'x', message: 'boom', reason: 'subtest rule' },
      { file: 'a', message: 'boom', reason: 'file rule' },
    ];
    expect(ruleReason(rules, 'a.any.js', null, 'it went boom')).toBe('file rule');
    expect(ruleReason(rules, 'a.any.js', { name: 'x', status: 'FAIL', message: 'boom' })).toBe('subtest rule');
    expect(ruleReason(rules, 'b.any.js', null, 'boom')).toBeUndefined();
  });

  it('refuses a file with a failure group, load error or rule without a reason, or a subtest listed twice', () => {
    expect(() =>
      parseExpectations('{"files":{"a":{"subtests":1,"failing":[{"reason":"","subtests":["x"]}]}}}'),
    ).toThrow(/reason/);
    expect(() => parseExpectations('{"files":{"a":{"subtests":1,"loadError":{"message":"m"}}}}')).toThrow(/reason/);
    expect(() => parseExpectations('{"rules":[{"message":"m"}],"files":{}}')).toThrow(/reason/);
    expect(() => parseExpectations('{"rules":[{"message":"(","reason":"r"}],"files":{}}')).toThrow(
      /regular expression/,
    );
    expect(() =>
      parseExpectations(
        '{"files":{"a":{"subtests":2,"failing":[{"reason":"r","subtests":["x"]},{"reason":"s","subtests":["x"]}]}}}',
      ),
    ).toThrow(/twice/);
  });
});

describe('areas and figures', () => {
  it('put a file in the first area that matches, and select by area name or path text', () => {
    expect(areaOf('url/urlsearchparams-get.any.js')).toBe('URLSearchParams');
    expect(areaOf('url/url-origin.any.js')).toBe('URL');
    expect(areaOf('somewhere/else.any.js')).toBe('other');
    expect(selects(['urlsearchparams'], 'url/urlencoded-parser.any.js')).toBe(true);
    expect(selects(['origin'], 'url/url-origin.any.js')).toBe(true);
    expect(selects(['Headers'], 'url/url-origin.any.js')).toBe(false);
  });

  it('count a file that did not load against the total the other runtime saw', () => {
    const ours = { label: 'ours', durationMs: 1, outcomes: new Map([['url/a.any.js', outcome([], 'x: boom')]]) };
    const workerd = {
      label: 'workerd',
      durationMs: 1,
      outcomes: new Map([
        [
          'url/a.any.js',
          outcome([
            ['one', 'PASS'],
            ['two', 'FAIL'],
          ]),
        ],
      ]),
    };
    expect(figures(['url/a.any.js'], ours, workerd).total).toEqual({
      area: 'total',
      files: 1,
      total: 2,
      ours: 0,
      workerd: 1,
    });
  });
});
