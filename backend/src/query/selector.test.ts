// Name patterns run in linear time whatever a request sends; label selectors parse as Kubernetes'.

import { QueryError, compileNamePattern, parseLabelSelector, parseNamePattern } from './selector.ts';

// A realistic name: 25 characters, the kind the simulator and real clusters make.
const NAME = 'llama-pretrain-run-0001-a';

describe('name patterns', () => {
  it.each([
    ['train', ['train'], ['train-1', 'xtrain']],
    ['train-*', ['train-1', 'train-'], ['train', 'eval-1']],
    ['t?ain', ['train', 'tXain'], ['tain']],
    ['/^train-\\d+$/', ['train-1', 'train-42'], ['train-', 'train-x']],
    ['/eval|bench/', ['eval', 'my-bench-2'], ['train']],
    ['/^a.c$/s', ['a\nc', 'abc'], ['ac']],
  ])('%s', (pattern, matching, other) => {
    const matches = parseNamePattern(pattern);
    for (const n of matching) expect(matches(n)).toBe(true);
    for (const n of other) expect(matches(n)).toBe(false);
  });

  // With backtracking, /^([a-z0-9-]+)+!$/ doubles its work with each character of the name: 0.4 s
  // for these 25 characters, minutes for 35, and it runs against every JobSet's name. The test tiers
  // run with V8's linear-time engine on, as the service does: each pattern must compile for it.
  it.each(['/^([a-z0-9-]+)+!$/', '/^(([a-z]+-?)*)*!$/', '/(.*.*)*!/', '*a*a*a*a*a*a*a*a*a*a*a*!'])('%s runs on the linear-time engine', (pattern) => {
    const compiled = compileNamePattern(pattern);
    expect(compiled).toBeInstanceOf(RegExp);
    expect((compiled as RegExp).flags).toContain('l');
    const matches = parseNamePattern(pattern);
    for (const n of [NAME, `${NAME}${'-a'.repeat(19)}`]) expect(matches(n)).toBe(false);
  });

  it.each([
    ['/(a)\\1/', /cannot be run in linear time/],
    ['/(?=a)a/', /cannot be run in linear time/],
    ['/^train/i', /cannot be run in linear time: .*the i, u, v and d flags/],
    ['/a{0,100000}/', /cannot be run in linear time/],
    ['/[/', /^name: not a valid regular expression \(Unterminated character class\)$/],
    ['/a{2,1}/', /^name: not a valid regular expression \(numbers out of order in \{\} quantifier\)$/],
  ])('%s is refused, naming the field', (pattern, message) => {
    expect(() => parseNamePattern(pattern)).toThrow(QueryError);
    expect(() => parseNamePattern(pattern)).toThrow(message);
    expect(() => parseNamePattern(pattern)).toThrow(/^name: /);
  });
});

describe('label selectors', () => {
  it('reads every requirement form', () => {
    const matches = parseLabelSelector('team in (x,y),!canary,env!=dev,tier');
    expect(matches({ team: 'x', tier: 'a' })).toBe(true);
    expect(matches({ team: 'x', tier: 'a', canary: '' })).toBe(false);
    expect(matches({ team: 'x', tier: 'a', env: 'dev' })).toBe(false);
    expect(matches({ team: 'z', tier: 'a' })).toBe(false);
  });
});
