import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compileSpamWords, parseSpamWords } from '../../src/spam/spam-words.js';
import { fuzzSeed } from '../helpers/fuzz.js';

function firstMatch(setting: string, data: unknown): string | null {
  const matcher = compileSpamWords(setting);
  assert.ok(matcher, `setting ${JSON.stringify(setting)} compiles to a matcher`);
  return matcher.firstMatch(data);
}

describe('compileSpamWords', () => {
  it('has nothing to match for a null, empty or separators-only setting', () => {
    for (const setting of [null, '', '   ', ',,,', '\n\n', ' , \r\n , ']) assert.equal(compileSpamWords(setting), null, JSON.stringify(setting));
  });

  it('splits on commas and on every kind of line break, trimming each entry', () => {
    assert.deepEqual(parseSpamWords(' casino , loan\nbitcoin\r\nforex\rlottery,,\n  '), ['casino', 'loan', 'bitcoin', 'forex', 'lottery']);
    for (const word of ['casino', 'loan', 'bitcoin', 'forex', 'lottery']) {
      assert.equal(firstMatch(' casino , loan\nbitcoin\r\nforex\rlottery', { message: `about ${word} today` }), word);
    }
  });

  it('drops repeated entries whatever their case, keeping the first spelling', () => {
    assert.deepEqual(parseSpamWords('Casino, casino, CASINO'), ['Casino']);
  });

  it('matches whatever the case and answers the entry as the owner wrote it', () => {
    assert.equal(firstMatch('Casino', { message: 'best CASINO in town' }), 'Casino');
    assert.equal(firstMatch('casino', { message: 'Casino royale' }), 'casino');
    assert.equal(firstMatch('straße', { message: 'STRASSE' }), null, 'no full case folding: ß is not ss');
    assert.equal(firstMatch('Ärger', { message: 'viel ärger' }), 'Ärger');
  });

  it('matches whole words only', () => {
    assert.equal(firstMatch('sex', { city: 'Essex' }), null);
    assert.equal(firstMatch('sex', { city: 'Sussex', note: 'sextant, sexy' }), null);
    assert.equal(firstMatch('sex', { message: 'Sex!' }), 'sex');
    assert.equal(firstMatch('sex', { message: '(sex)' }), 'sex');
    assert.equal(firstMatch('loan', { message: 'loans' }), null);
    assert.equal(firstMatch('loan', { message: 'a loan-shark' }), 'loan', 'a hyphen is not part of a word');
    assert.equal(firstMatch('loan', { message: 'loan1' }), null, 'digits are part of a word');
    assert.equal(firstMatch('loan', { message: 'my_loan' }), 'loan', 'an underscore is not a letter or digit');
  });

  it('matches a phrase across any run of whitespace, but not across other characters', () => {
    assert.equal(firstMatch('buy now', { message: 'Buy  now!' }), 'buy now');
    assert.equal(firstMatch('buy now', { message: 'please buy\n\tnow' }), 'buy now');
    assert.equal(firstMatch('buy   now', { message: 'buy now' }), 'buy   now');
    assert.equal(firstMatch('buy now', { message: 'buy\u00a0now' }), 'buy now', 'a no-break space is whitespace');
    assert.equal(firstMatch('buy now', { message: 'buynow' }), null);
    assert.equal(firstMatch('buy now', { message: 'buy-now' }), null);
    assert.equal(firstMatch('buy now', { message: 'buy nowhere' }), null);
  });

  it('uses word boundaries of every script', () => {
    assert.equal(firstMatch('казино', { message: 'Лучшее КАЗИНО онлайн' }), 'казино');
    assert.equal(firstMatch('спам', { message: 'антиспам защита' }), null);
    assert.equal(firstMatch('δωρεάν', { message: 'Δωρεάν δώρο' }), 'δωρεάν');
    assert.equal(firstMatch('مجاني', { message: 'عرض مجاني اليوم' }), 'مجاني');
    assert.equal(firstMatch('café', { message: 'Le CAFÉ du coin' }), 'café');
    assert.equal(firstMatch('cafe', { message: 'café' }), null, 'an accented letter is a different letter');
    assert.equal(firstMatch('cafe', { message: 'cafe\u0301' }), null, 'a combining accent belongs to the word');
  });

  it('compares composed and decomposed accents as the same text', () => {
    assert.equal(firstMatch('café', { message: 'un cafe\u0301 noir' }), 'café');
    assert.equal(firstMatch('cafe\u0301', { message: 'un café noir' }), 'café');
  });

  it('finds words inside Chinese, Japanese and Thai text, which has no spaces', () => {
    assert.equal(firstMatch('免费', { message: '点击获取免费礼品' }), '免费');
    assert.equal(firstMatch('カジノ', { message: 'オンラインカジノで遊ぼう' }), 'カジノ');
    assert.equal(firstMatch('ฟรี', { message: 'รับของฟรีวันนี้' }), 'ฟรี');
  });

  it('treats regular-expression characters in an entry literally', () => {
    assert.equal(firstMatch('c++', { message: 'I write C++ daily' }), 'c++');
    assert.equal(firstMatch('c++', { message: 'ccc' }), null);
    assert.equal(firstMatch('$$$', { message: 'earn$$$now' }), '$$$', 'an edge that is not a letter needs no boundary');
    assert.equal(firstMatch('a.b', { message: 'axb' }), null);
    assert.equal(firstMatch('a.b', { message: 'see a.b' }), 'a.b');
    assert.equal(firstMatch('(free)', { message: 'it is (FREE) today' }), '(free)');
    assert.equal(firstMatch('[url]', { message: '[url]x[/url]' }), '[url]');
    assert.equal(firstMatch('\\d+', { message: '12345' }), null);
    assert.equal(firstMatch('\\d+', { message: 'regex \\d+ here' }), '\\d+');
    assert.equal(firstMatch('a|b', { message: 'a' }), null);
    assert.equal(firstMatch('*', { message: 'rated * stars' }), '*');
    assert.equal(firstMatch('x{2}', { message: 'xx' }), null);
    assert.equal(firstMatch('^hi$', { message: 'say ^hi$' }), '^hi$');
    assert.equal(firstMatch('a/b?', { message: 'a/b?' }), 'a/b?');
  });

  it('reads every string in nested objects and arrays, and numbers', () => {
    const setting = 'casino, 666';
    assert.equal(firstMatch(setting, { a: { b: { c: ['ok', { d: 'online casino' }] } } }), 'casino');
    assert.equal(firstMatch(setting, { choices: ['red', 'green', 'Casino'] }), 'casino');
    assert.equal(firstMatch(setting, { count: 666 }), '666');
    assert.equal(firstMatch(setting, { a: { b: ['fine', null, true, 3] } }), null);
    assert.equal(firstMatch(setting, 'casino'), 'casino', 'a bare string is a value too');
  });

  it('never matches a field name', () => {
    assert.equal(firstMatch('casino', { casino: 'hello', nested: { casino: ['fine'] } }), null);
  });

  it('answers the first entry found in the first value that holds one', () => {
    assert.equal(firstMatch('alpha, beta', { first: 'nothing', second: 'beta then alpha' }), 'beta');
  });

  it('caches one matcher per setting, dropping the least recently used past 1000', () => {
    const setting = `cache-probe-${Math.random()}`;
    const matcher = compileSpamWords(setting);
    assert.equal(compileSpamWords(setting), matcher, 'the same setting answers the same matcher');
    for (let i = 0; i < 999; i++) compileSpamWords(`filler-a-${i}`);
    assert.equal(compileSpamWords(setting), matcher, 'still cached, and now the most recently used');
    for (let i = 0; i < 999; i++) compileSpamWords(`filler-b-${i}`);
    assert.equal(compileSpamWords(setting), matcher, 'the touch kept it');
    for (let i = 0; i < 1000; i++) compileSpamWords(`filler-c-${i}`);
    assert.notEqual(compileSpamWords(setting), matcher, 'dropped after 1000 newer settings');
  });

  it('reads a setting only up to its 2560-character limit, dropping the entry cut there', () => {
    const setting = `${'x'.repeat(2550)},casino,lottery`;
    assert.deepEqual(parseSpamWords(setting).slice(1), ['casino']);
    const huge = Array.from({ length: 250_000 }, (_, i) => `word${i}`).join(',');
    assert.equal(compileSpamWords(huge)?.firstMatch({ m: 'word7' }), 'word7');
    assert.equal(compileSpamWords(huge)?.firstMatch({ m: 'word249999' }), null);
  });

  it('never throws on odd input', () => {
    const cyclic: Record<string, unknown> = { message: 'fine' };
    cyclic.self = cyclic;
    cyclic.list = [cyclic, cyclic];
    let deep: unknown = 'casino';
    for (let i = 0; i < 10_000; i++) deep = { next: deep };
    const odd: unknown[] = [undefined, null, 42n, Symbol('s'), () => 'casino', cyclic, deep, [[[[]]]], new Date(), 'a\uD800b', ''];
    const matcher = compileSpamWords('casino, \uD800, \uDFFFx');
    assert.ok(matcher, 'lone surrogates in the setting still compile');
    for (const data of odd) assert.doesNotThrow(() => matcher.firstMatch(data), String(typeof data));
    assert.equal(matcher.firstMatch(cyclic), null);
    assert.equal(matcher.firstMatch({ s: 'a\uD800b' }), '\uD800');
    assert.equal(compileSpamWords(42 as unknown as string), null);
  });

  it('scans a large value with a long setting in bounded work', () => {
    // Entries that share long prefixes with the text are the worst case for a backtracking engine.
    const setting = [`${'!'.repeat(2000)}x`, 'buy now', ...Array.from({ length: 60 }, (_, i) => `aaaa${i}`)].join(',');
    const matcher = compileSpamWords(setting);
    assert.ok(matcher, 'compiles');
    assert.equal(matcher.firstMatch({ a: '!'.repeat(250_000), b: `buy${' '.repeat(250_000)}`, c: 'aaaa '.repeat(50_000) }), null);
    assert.equal(matcher.firstMatch({ a: `${'!'.repeat(2000)}x` }), `${'!'.repeat(2000)}x`);
  });
});

describe('compileSpamWords: the same matches as the regular expression it replaced', () => {
  // The former matcher, kept as the reference: one `iu` pattern of every entry, each with its word
  // boundaries (lookarounds) where its edge is a letter or digit of a script written with spaces.
  const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
  const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
  const needsBoundary = (char: string) => WORD_CHAR.test(char) && !UNSPACED.test(char);
  const literal = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  function formerPattern(setting: string): RegExp | null {
    const entries = parseSpamWords(setting);
    if (entries.length === 0) return null;
    const alternatives = entries.map((entry) => {
      const before = needsBoundary(String.fromCodePoint(entry.codePointAt(0)!)) ? '(?<![\\p{L}\\p{M}\\p{N}])' : '';
      const after = needsBoundary(Array.from(entry.slice(-2)).pop()!) ? '(?![\\p{L}\\p{M}\\p{N}])' : '';
      return `${before}${entry.split(/\s+/).map(literal).join('\\s+')}${after}`;
    });
    return new RegExp(alternatives.join('|'), 'iu');
  }

  // Letters in every case and folding oddity, accents composed and not, scripts with and without
  // spaces, whitespace of several kinds, punctuation, digits, a lone surrogate and an emoji.
  const pieces = [
    'a',
    'A',
    'b',
    'é',
    'e\u0301',
    'É',
    ' ',
    '  ',
    '\t',
    '\n',
    '\u00a0',
    '\u3000',
    '-',
    '.',
    '!',
    '$',
    '+',
    '_',
    ',',
    'ß',
    'ẞ',
    'ss',
    'ı',
    'i',
    'I',
    'İ',
    'k',
    'K',
    '\u212a',
    'ſ',
    's',
    'σ',
    'ς',
    'Σ',
    'µ',
    'μ',
    'ǅ',
    'Ǆ',
    'ϑ',
    'θ',
    'Ꭰ',
    'ꭰ',
    'ﬅ',
    'ﬆ',
    '免',
    '费',
    'ก',
    'カ',
    '1',
    '٣',
    '\u0301',
    '\ud800',
    '😀',
    '𝐀',
  ];
  const text = (max: number) => fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: max }).map((parts) => parts.join(''));

  // NOTE: 3,000 runs, as compiling each pattern takes milliseconds (60,000 were run once, none differed)
  it('finds a listed word in a value exactly when the former pattern did', () => {
    fc.assert(
      fc.property(fc.array(text(3), { minLength: 1, maxLength: 3 }), text(30), (words, value) => {
        const setting = words.join('\n');
        const former = formerPattern(setting)?.test(value.normalize('NFC')) ?? false;
        assert.equal(compileSpamWords(setting)?.firstMatch({ value }) != null, former, `${JSON.stringify(setting)} in ${JSON.stringify(value)}`);
      }),
      { seed: fuzzSeed('spam words against the former pattern'), numRuns: 3_000 },
    );
  });
});
