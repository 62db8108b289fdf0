import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseModel, CountsInMemory, modelText } from '../../src/spam/base-model.js';
import { judge, NO_COUNTS } from '../../src/spam/learned-filter.js';
import { learnedFinding, learnedPoints } from '../../src/spam/learned-finding.js';
import { scannedFields } from '../../src/spam/score.js';
import { tokenHash } from '../../src/spam/token-hash.js';
import { MAX_TOKENS, tokensOf } from '../../src/spam/tokens.js';

const tokens = (data: Record<string, unknown>) => [...tokensOf(scannedFields(data))];

// A base model of two words: "casino" only ever in spam, "invoice" only ever in legitimate messages.
const base = new CountsInMemory({ source: 'test', spamMessages: 100, hamMessages: 100, tokens: { casino: [60, 0], invoice: [0, 60], hello: [50, 50] } });

describe('the learned filter’s tokens (issue 40)', () => {
  it('are lower-case words and the pairs of adjacent words', () => {
    assert.deepEqual(tokens({ message: 'Cheap Casino now' }), ['cheap', 'casino', 'cheap casino', 'now', 'casino now']);
  });

  it('never hold what identifies a person: addresses and numbers become signs', () => {
    const found = tokens({ message: 'Write to ada.lovelace@example.org or call +44 20 7946 0958, order 100245' });
    assert.ok(found.includes('email') && found.includes('number:6') && found.includes('number:4'), found.join(' | '));
    for (const token of found) assert.doesNotMatch(token, /ada|lovelace|7946|0958|100245/, token);
  });

  it('read links by their host’s words, never the path', () => {
    const found = tokens({ message: 'see https://cheap-pills.shop/buy?id=ada' });
    assert.ok(found.includes('host:cheap-pills') && found.includes('host:shop'), found.join(' | '));
    assert.ok(!found.some((token) => token.includes('ada') || token.includes('buy')), found.join(' | '));
  });

  it('mark a subject’s words apart', () => {
    assert.ok(tokens({ subject: 'Free money' }).includes('subject:free money'));
  });

  it('read Chinese and Japanese, written without spaces, as overlapping pairs of characters', () => {
    assert.deepEqual(tokens({ message: '我收到的杯子' }), ['我收', '收到', '到的', '的杯', '杯子']);
    // a lone character is itself; Latin letters and digits inside such a word read as words and numbers do
    assert.deepEqual(tokens({ message: '東 vip-mailで 50元获得' }), ['東', 'vip-mail', 'で', 'number:2', '元获', '获得']);
    assert.ok(tokens({ subject: '出会い' }).includes('subject:出会'));
  });

  it('are bounded however long the submission', () => {
    const words = Array.from(
      { length: 30_000 },
      (_, i) =>
        `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}${String.fromCharCode(97 + (Math.floor(i / 676) % 26))}`,
    );
    assert.equal(tokensOf(scannedFields({ message: words.join(' ') })).size, MAX_TOKENS);
  });
});

describe('the learned filter’s verdict (issue 40)', () => {
  it('knows nothing of words it never saw', () => {
    assert.deepEqual(judge(['zorblat', 'quenvid'], base, null), { probability: 0.5, evidence: 0, strongest: [] });
    assert.deepEqual(learnedFinding(judge(['zorblat'], base, null), base), []);
  });

  it('leans to spam on spam’s words and to legitimate on the others’, and names them', () => {
    const spam = judge(['casino', 'hello'], base, null);
    assert.ok(spam.probability > 0.9, String(spam.probability));
    assert.deepEqual(
      spam.strongest.map((clue) => clue.token),
      ['casino'],
    );
    assert.ok(judge(['invoice'], base, null).probability < 0.1);
  });

  it('gives no points when unsure, and fewer when a verdict rests on few words', () => {
    assert.equal(learnedPoints(0.55, 10), 0);
    assert.equal(learnedPoints(1, 10), 15);
    assert.equal(learnedPoints(0, 10), -10);
    assert.ok(learnedPoints(1, 1) < learnedPoints(1, 5));
  });

  it('learns from lessons only the tokens they hold: the others read as before', () => {
    const lessons = new CountsInMemory({ source: 'lessons', spamMessages: 20, hamMessages: 0, tokens: { zorblat: [20, 0] } });
    const before = judge(['invoice'], base, null).probability;
    assert.equal(judge(['invoice'], base, lessons).probability, before, 'twenty lessons of spam do not make "invoice" look like spam');
    assert.ok(judge(['zorblat', 'invoice'], base, lessons).strongest.length > 0);
    const learned = judge(['zorblat'], base, lessons);
    assert.ok(learned.probability > 0.9 && learned.strongest[0]?.learned === true, JSON.stringify(learned));
  });

  it('quotes only words the base model knows, and counts the ones learned from marks', () => {
    const lessons = new CountsInMemory({ source: 'lessons', spamMessages: 5, hamMessages: 0, tokens: { zorblat: [5, 0], quenvid: [5, 0] } });
    const tokensJudged = ['casino', 'zorblat', 'quenvid', 'hello'];
    const [finding] = learnedFinding(judge(tokensJudged, base, lessons), base);
    assert.match(finding?.reason ?? '', /^learned filter: \d+% spam, most of all "casino", 2 words learned from your marks$/);
    assert.doesNotMatch(finding?.reason ?? '', /zorblat|quenvid/);
  });

  it('reads a workspace’s lessons by hash, never by the word', () => {
    assert.equal(tokenHash('zorblat'), tokenHash('zorblat'));
    assert.notEqual(tokenHash('zorblat'), tokenHash('zorblau'));
    assert.ok(Number.isSafeInteger(tokenHash('a much longer token than most')));
    assert.deepEqual(judge(['anything'], NO_COUNTS, null).evidence, 0);
  });
});

describe('the counts in memory (issue 44: a table of typed arrays, not a Map of 60,000 strings)', () => {
  it('find every token with its own counts, and nothing for a token it does not hold', () => {
    const tokens: Record<string, [number, number]> = {};
    // enough tokens that many share a slot's neighbourhood, prefixes of each other and non-Latin ones among them
    for (let i = 0; i < 5000; i++) tokens[`w${i}`] = [i, 5000 - i];
    Object.assign(tokens, { w: [7, 7], 'w1 w2': [3, 1], 'host:shop': [9, 0], 您好: [9, 15], 'number:5': [2, 8] });
    const counts = new CountsInMemory({ source: 'test\twith a tab', spamMessages: 41, hamMessages: 43, tokens });
    assert.equal(counts.spamMessages, 41);
    assert.equal(counts.hamMessages, 43);
    for (const [token, [spam, ham]] of Object.entries(tokens)) assert.deepEqual(counts.count(token), { spam, ham }, token);
    for (const absent of ['', 'w5000', 'w1 w', 'W1', '您', 'host:sho', 'w12345']) assert.equal(counts.count(absent), undefined, absent);
  });

  it('read the text modelText writes, and a model of no tokens', () => {
    const model = { source: 'x', spamMessages: 1, hamMessages: 2, tokens: { casino: [4, 0] as [number, number] } };
    assert.deepEqual(new CountsInMemory(modelText(model)).count('casino'), { spam: 4, ham: 0 });
    const empty = new CountsInMemory({ source: 'none', spamMessages: 0, hamMessages: 0, tokens: {} });
    assert.equal(empty.count('casino'), undefined);
    assert.equal(empty.spamMessages, 0);
  });

  it('ship the base model whole: its counts of a few words as trained', () => {
    const base = baseModel();
    assert.deepEqual(base.count('about'), { spam: 151, ham: 742 });
    assert.ok(base.spamMessages > 1000 && base.hamMessages > 3000);
    assert.equal(base.count('zzzq-never-a-word'), undefined);
  });
});
