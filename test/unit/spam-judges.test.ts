// The outside spam judges (issue 40, item 4) against stand-ins on loopback, the real spamd when
// installed, and Redis at 127.0.0.1:6379 when it answers. No database: test/intake/outside-judges.test.ts
// runs them through the submit surface on both.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { simpleParser } from 'mailparser';
import { DEFAULT_SPAM_JUDGES_BUDGET_MS, parseSpamJudges } from '../../src/config/spam-judges.js';
import { commentCheckBody } from '../../src/spam/judges/akismet.js';
import { disposableFindings, isDisposableAddress } from '../../src/spam/judges/disposable-domains.js';
import type { JudgedSubmission, JudgeSettings } from '../../src/spam/judges/judge.js';
import { OutsideJudges } from '../../src/spam/judges/outside-judges.js';
import {
  MemorySameMessageLog,
  messageHash,
  RedisSameMessageLog,
  SAME_MESSAGE_WINDOW_MS,
  type SameMessageLog,
  sameMessageFindings,
} from '../../src/spam/judges/same-message.js';
import { spamAssassinFindings, submissionMessage } from '../../src/spam/judges/spamassassin.js';
import { scannedFields } from '../../src/spam/score.js';
import {
  AKISMET_DISCARD,
  AKISMET_ERROR,
  AKISMET_HAM,
  AKISMET_INVALID,
  AKISMET_SILENT,
  AKISMET_SPAM,
  type AkismetStandIn,
  startAkismetStandIn,
} from '../helpers/akismet-stand-in.js';
import { connectTestRedis } from '../helpers/redis.js';
import {
  closedPort,
  realSpamdInstalled,
  SPAM,
  SPAMD_BINARY,
  spamdAnswer,
  startRealSpamd,
  startSpamdStandIn,
  type SpamdStandIn,
} from '../helpers/spamd-stand-in.js';

const OFF: JudgeSettings = { spamAssassin: false, akismetKey: null, flagDisposableAddresses: false, flagSameMessage: false };
const MESSAGE = 'Hello, I would like a quote for a new roof on our house in Leeds, about 80 square metres.';

function submission(data: Record<string, unknown> = { name: 'Ann Lee', email: 'ann@example.com', message: MESSAGE }): Omit<JudgedSubmission, 'site'> & {
  site: string | null;
} {
  return {
    formId: 'form1',
    fields: scannedFields(data),
    email: typeof data.email === 'string' ? data.email : null,
    name: typeof data.name === 'string' ? data.name : null,
    subject: 'Roof quote',
    ip: '203.0.113.7',
    visitorKey: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
    referrer: 'https://roofs.example/contact',
    site: 'https://roofs.example',
  };
}

/** A warn log that keeps its lines, and a counter that keeps its answers. */
function recorders() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const counted: string[] = [];
  return {
    lines,
    counted,
    log: { warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) } as never,
    counter: { spamJudged: (judge: string, outcome: string) => counted.push(`${judge} ${outcome}`) },
  };
}

function judges(options: { spamd?: SpamdStandIn | { host: string; port: number } | null; akismetUrl?: string; budgetMs?: number; now?: () => number } = {}) {
  const record = recorders();
  const spamd = options.spamd && 'url' in options.spamd ? { host: '127.0.0.1', port: options.spamd.port } : (options.spamd ?? null);
  const outside = new OutsideJudges({
    spamd,
    config: { budgetMs: options.budgetMs ?? DEFAULT_SPAM_JUDGES_BUDGET_MS, akismetUrl: options.akismetUrl ?? 'http://127.0.0.1:9/1.1' },
    publicUrl: 'https://forms.example',
    log: record.log,
    counter: record.counter,
    ...(options.now ? { now: options.now } : {}),
  });
  return { outside, ...record };
}

describe('configuration of the outside judges', () => {
  it('defaults to a 1.5 s budget and Akismet’s own address, and refuses what it cannot read', () => {
    assert.deepEqual(parseSpamJudges({}), { budgetMs: 1500, akismetUrl: 'https://rest.akismet.com/1.1' });
    assert.deepEqual(parseSpamJudges({ spamJudgesBudget: '2s', akismetUrl: 'http://127.0.0.1:8099/1.1/' }), {
      budgetMs: 2000,
      akismetUrl: 'http://127.0.0.1:8099/1.1',
    });
    assert.equal(parseSpamJudges({ spamJudgesBudget: '250ms' }).budgetMs, 250);
    for (const bad of ['0', '50ms', '11s', '1500', 'soon'])
      assert.throws(() => parseSpamJudges({ spamJudgesBudget: bad }), /FORMGATE_SPAM_JUDGES_BUDGET must be a duration from 100ms to 10s/);
    for (const bad of ['ftp://x', 'not a url', 'https://user:pw@rest.akismet.com/1.1', 'https://x/1.1?key=1'])
      assert.throws(() => parseSpamJudges({ akismetUrl: bad }), /FORMGATE_AKISMET_URL must be an http or https URL/);
  });
});

describe('SpamAssassin judge', () => {
  it('maps spamd’s score to points: nothing from 0 to 5, +6 from 5, +10 from 10, −2 below 0', () => {
    assert.deepEqual(spamAssassinFindings(0.3), []);
    assert.deepEqual(spamAssassinFindings(4.9), []);
    assert.deepEqual(spamAssassinFindings(7.2), [{ points: 6, reason: 'SpamAssassin scored 7.2' }]);
    assert.deepEqual(spamAssassinFindings(1000), [{ points: 10, reason: 'SpamAssassin scored 1000' }]);
    assert.deepEqual(spamAssassinFindings(-1.5), [{ points: -2, reason: 'SpamAssassin scored -1.5' }]);
  });

  it('sends a small e-mail: From the submitter, the subject, the values; a header cannot be added through a value', async () => {
    const data = { name: 'Ann', email: 'ann@example.com', message: 'Line one\r\nBcc: victim@example.com\r\n\r\nLine two' };
    const mail = await simpleParser(await submissionMessage({ ...submission(data), subject: 'Quote\r\nBcc: x@example.com', site: 'https://roofs.example' }));
    assert.equal(mail.from?.text, 'ann@example.com');
    assert.equal(mail.subject, 'Quote Bcc: x@example.com', 'folded into the one subject');
    assert.equal(mail.bcc, undefined);
    assert.match(mail.text ?? '', /Line one\s+Bcc: victim@example.com\s+Line two/);
    assert.match(mail.text ?? '', /^Ann\n\nann@example.com\n\n/);
    const anonymous = await simpleParser(await submissionMessage({ ...submission({ message: MESSAGE }), email: null, subject: null, site: 'x' }));
    assert.equal(anonymous.from, undefined, 'no address, no From');
    assert.equal(anonymous.subject, 'Form submission');
  });

  it('sends at most 20,000 characters of the values', async () => {
    const mail = await simpleParser(await submissionMessage({ ...submission({ message: 'word '.repeat(10_000) }), site: 'x' }));
    assert.ok((mail.text ?? '').trim().length <= 20_000);
  });

  describe('against a stand-in spamd', () => {
    let spamd: SpamdStandIn;
    before(async () => {
      spamd = await startSpamdStandIn(SPAM);
    });
    after(() => spamd.close());

    it('adds the points of spamd’s score, with a reason that quotes nothing sent', async () => {
      spamd.reply = SPAM;
      const { outside, counted, lines } = judges({ spamd });
      const findings = await outside.judge({ ...OFF, spamAssassin: true }, submission());
      assert.deepEqual(findings, [{ points: 6, reason: 'SpamAssassin scored 7.3' }]);
      assert.equal(spamd.requests.at(-1)?.command, 'SYMBOLS SPAMC/1.5');
      assert.deepEqual(counted, ['spamassassin spam']);
      assert.deepEqual(lines, []);
    });

    it('gives no points and no error when spamd holds the connection past the budget', async () => {
      spamd.reply = () => null;
      const { outside, counted, lines } = judges({ spamd, budgetMs: 200 });
      const started = performance.now();
      assert.deepEqual(await outside.judge({ ...OFF, spamAssassin: true }, submission()), []);
      assert.ok(performance.now() - started < 1000, 'answered at the budget');
      assert.deepEqual(counted, ['spamassassin timeout']);
      assert.equal(lines[0]?.fields.judge, 'spamassassin');
      assert.equal(lines[0]?.fields.formId, 'form1');
      assert.equal(JSON.stringify(lines).includes('roof'), false, 'the log line quotes nothing the visitor sent');
    });

    it('gives no points when spamd answers something that is not a verdict', async () => {
      spamd.reply = () => 'SPAMD/1.1 76 Bad header line\r\n\r\n';
      const { outside, counted } = judges({ spamd });
      assert.deepEqual(await outside.judge({ ...OFF, spamAssassin: true }, submission()), []);
      assert.deepEqual(counted, ['spamassassin error']);
      spamd.reply = () => spamdAnswer({ spam: false, score: -0.5 });
      assert.deepEqual(await judges({ spamd }).outside.judge({ ...OFF, spamAssassin: true }, submission()), [
        { points: -2, reason: 'SpamAssassin scored -0.5' },
      ]);
    });
  });

  it('gives no points when nothing listens, and logs one line a minute', async () => {
    let time = 0;
    const { outside, counted, lines } = judges({ spamd: { host: '127.0.0.1', port: await closedPort() }, now: () => time });
    for (let i = 0; i < 3; i++) assert.deepEqual(await outside.judge({ ...OFF, spamAssassin: true }, submission()), []);
    time += 61_000;
    await outside.judge({ ...OFF, spamAssassin: true }, submission());
    assert.deepEqual(counted, ['spamassassin error', 'spamassassin error', 'spamassassin error', 'spamassassin error']);
    assert.equal(lines.length, 2, 'the first, then one a minute later');
    assert.equal(lines[1]?.fields.notLogged, 2, 'saying how many were left out');
    assert.match(String(lines[0]?.fields.detail), /could not be reached \(ECONNREFUSED\)/);
  });

  it('is not asked when the instance has no spamd, whatever the form says', async () => {
    const { outside, counted } = judges({ spamd: null });
    assert.equal(outside.anyOn({ ...OFF, spamAssassin: true }), false);
    assert.deepEqual(await outside.judge({ ...OFF, spamAssassin: true }, submission()), []);
    assert.deepEqual(counted, []);
  });

  it('scores SpamAssassin’s test message high with the real spamd', { skip: !realSpamdInstalled() && `${SPAMD_BINARY} is not installed` }, async () => {
    const real = await startRealSpamd();
    try {
      const [host, port] = real.url.slice('spamd://'.length).split(':');
      const { outside, counted } = judges({ spamd: { host: host!, port: Number(port) }, budgetMs: 10_000 });
      const gtube = { email: 'ann@example.com', message: 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X' };
      const findings = await outside.judge({ ...OFF, spamAssassin: true }, submission(gtube));
      assert.equal(findings[0]?.points, 10, JSON.stringify({ findings, counted }));
      assert.match(findings[0]!.reason, /^SpamAssassin scored \d+/);
    } finally {
      await real.stop();
    }
  });
});

describe('Akismet judge', () => {
  let akismet: AkismetStandIn;
  before(async () => {
    akismet = await startAkismetStandIn();
  });
  after(() => akismet.close());
  const on = { ...OFF, akismetKey: 'abc123def456' };

  it('sends comment-check exactly the documented fields of a contact form, with the owner’s key', async () => {
    akismet.reply = AKISMET_HAM;
    const { outside, counted } = judges({ akismetUrl: akismet.url });
    assert.deepEqual(await outside.judge(on, submission()), []);
    const sent = akismet.requests.at(-1)!;
    assert.equal(sent.path, '/1.1/comment-check');
    assert.match(sent.contentType, /^application\/x-www-form-urlencoded/);
    assert.deepEqual(Object.fromEntries(sent.params), {
      api_key: 'abc123def456',
      blog: 'https://roofs.example',
      user_ip: '203.0.113.7',
      comment_type: 'contact-form',
      blog_charset: 'UTF-8',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
      referrer: 'https://roofs.example/contact',
      comment_author: 'Ann Lee',
      comment_author_email: 'ann@example.com',
      comment_content: MESSAGE,
    });
    assert.deepEqual(counted, ['akismet ham']);
  });

  it('uses Formgate’s public address as the blog when the form lists no site, and leaves out what it does not know', () => {
    const params = new URLSearchParams(
      commentCheckBody('k', { ...submission({ message: MESSAGE }), site: 'https://forms.example', userAgent: null, referrer: null, email: null, name: null }),
    );
    assert.deepEqual([...params.keys()].sort(), ['api_key', 'blog', 'blog_charset', 'comment_content', 'comment_type', 'user_ip']);
  });

  it('adds 8 points for spam, 10 and spam at once when Akismet says to discard it', async () => {
    akismet.reply = AKISMET_SPAM;
    assert.deepEqual(await judges({ akismetUrl: akismet.url }).outside.judge(on, submission()), [{ points: 8, reason: 'Akismet: spam' }]);
    akismet.reply = AKISMET_DISCARD;
    assert.deepEqual(await judges({ akismetUrl: akismet.url }).outside.judge(on, submission()), [
      { points: 10, reason: 'Akismet: blatant spam', decisive: true },
    ]);
  });

  it('gives no points for a refused key, an error or silence past the budget, each counted and logged', async () => {
    for (const [reply, outcome] of [
      [AKISMET_INVALID, 'invalid_key'],
      [AKISMET_ERROR, 'error'],
      [() => ({ body: 'maybe' }), 'error'],
      [AKISMET_SILENT, 'timeout'],
    ] as const) {
      akismet.reply = reply;
      const { outside, counted, lines } = judges({ akismetUrl: akismet.url, budgetMs: 300 });
      const started = performance.now();
      assert.deepEqual(await outside.judge(on, submission()), [], outcome);
      assert.ok(performance.now() - started < 1500, `${outcome}: answered within the budget`);
      assert.deepEqual(counted, [`akismet ${outcome}`]);
      assert.equal(lines[0]?.fields.outcome, outcome);
      assert.equal(JSON.stringify(lines).includes('abc123def456'), false, 'the key is never logged');
    }
    akismet.reply = AKISMET_INVALID;
    const { outside, lines } = judges({ akismetUrl: akismet.url });
    await outside.judge(on, submission());
    assert.match(String(lines[0]?.fields.detail), /unable to verify your API key/);
  });

  it('gives no points when nothing listens', async () => {
    const { outside, counted } = judges({ akismetUrl: `http://127.0.0.1:${await closedPort()}/1.1` });
    assert.deepEqual(await outside.judge(on, submission()), []);
    assert.deepEqual(counted, ['akismet error']);
  });
});

describe('disposable addresses', () => {
  it('flags a domain of the list and the domains under it, case and a final dot aside; never others', () => {
    for (const address of ['bot@mailinator.com', 'x@MAILINATOR.COM', 'x@eu.mailinator.com', 'x@guerrillamail.com', 'x@yopmail.com.'])
      assert.equal(isDisposableAddress(address), true, address);
    for (const address of ['ann@example.com', 'ann@gmail.com', 'ann@mailinator.com.example.org', 'no-at-sign'])
      assert.equal(isDisposableAddress(address), false, address);
    assert.deepEqual(disposableFindings('x@mailinator.com'), [{ points: 4, reason: 'disposable e-mail address' }]);
    assert.deepEqual(disposableFindings(null), []);
  });

  it('counts as a judge: spam when it fires, ham otherwise, nothing sent', async () => {
    const { outside, counted } = judges();
    const settings = { ...OFF, flagDisposableAddresses: true };
    assert.deepEqual(await outside.judge(settings, { ...submission(), email: 'x@mailinator.com' }), [{ points: 4, reason: 'disposable e-mail address' }]);
    assert.deepEqual(await outside.judge(settings, submission()), []);
    assert.deepEqual(counted, ['disposable spam', 'disposable ham']);
  });
});

let redisPrefixes = 0;
async function redisSameMessages(t: TestContext): Promise<SameMessageLog | null> {
  const redis = await connectTestRedis(t);
  if (!redis) return null;
  const prefix = `formgate-same-message-test-${process.pid}-${++redisPrefixes}:`;
  t.after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  return new RedisSameMessageLog(redis, new MemorySameMessageLog(), prefix);
}

const SAME_LOGS: { name: string; open(t: TestContext): Promise<SameMessageLog | null> }[] = [
  { name: 'in memory', open: async () => new MemorySameMessageLog() },
  { name: 'in Redis', open: redisSameMessages },
];

for (const kind of SAME_LOGS) {
  describe(`the same message from many addresses, ${kind.name}`, () => {
    const fields = scannedFields({ email: 'a@example.com', message: MESSAGE });
    const send = (log: SameMessageLog, from: string, at: number, formId = 'form1', sent = fields) => sameMessageFindings(log, formId, sent, from, at);

    it('is spam from the fifth distinct address within an hour, not from one address sending it again', async (t) => {
      const log = await kind.open(t);
      if (!log) return;
      for (let i = 1; i <= 4; i++) assert.deepEqual(await send(log, `198.51.100.${i}`, i * 1000), [], `address ${i}`);
      for (let i = 0; i < 3; i++) assert.deepEqual(await send(log, '198.51.100.4', 5000 + i), [], 'the fourth again is still four');
      const fifth = await send(log, '198.51.100.5', 6000);
      assert.deepEqual(fifth, [{ points: 10, reason: 'same message from 5 or more addresses within 60 minutes', decisive: true }]);
      assert.equal((await send(log, '198.51.100.5', 6001, 'form2')).length, 0, 'counted per form');
    });

    it('forgets addresses older than the window; case and spacing do not make a message new', async (t) => {
      const log = await kind.open(t);
      if (!log) return;
      for (let i = 1; i <= 4; i++) await send(log, `198.51.100.${i}`, 0);
      assert.deepEqual(await send(log, '198.51.100.9', SAME_MESSAGE_WINDOW_MS + 1), [], 'the first four are out of the window');
      const shouted = scannedFields({ message: `  ${MESSAGE.toUpperCase().replaceAll(' ', '   ')} ` });
      assert.equal(messageHash(shouted), messageHash(fields));
      for (let i = 10; i < 13; i++) await send(log, `198.51.100.${i}`, SAME_MESSAGE_WINDOW_MS + 2, 'form1', shouted);
      assert.equal((await send(log, '198.51.100.20', SAME_MESSAGE_WINDOW_MS + 3)).length, 1);
    });
  });
}

describe('the same message, where it is not compared', () => {
  it('leaves short messages alone: many honest people write "yes" or their name', async () => {
    assert.equal(messageHash(scannedFields({ answer: 'Yes, please sign me up.' })), null);
    const log = new MemorySameMessageLog();
    for (let i = 1; i <= 10; i++) assert.deepEqual(await sameMessageFindings(log, 'f', scannedFields({ answer: 'yes' }), `198.51.100.${i}`, i), []);
  });

  it('keeps a bounded memory: the least recently seen messages go first', async () => {
    const log = new MemorySameMessageLog(2);
    for (let i = 1; i <= 4; i++) await log.sentFrom(`message ${i}`, 'a', i);
    assert.equal(await log.sentFrom('message 1', 'b', 10), 1, 'forgotten');
  });

  it('falls back to memory while Redis does not answer', async () => {
    const { Redis } = await import('ioredis');
    const unreachable = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const log = new RedisSameMessageLog(unreachable, new MemorySameMessageLog());
    assert.equal(await log.sentFrom('k', 'a', 1), 1);
    assert.equal(await log.sentFrom('k', 'b', 2), 2);
    unreachable.disconnect();
  });
});

describe('outside judges, all off', () => {
  it('asks nobody and counts nothing', async () => {
    const spamd = await startSpamdStandIn(SPAM);
    const akismet = await startAkismetStandIn(AKISMET_SPAM);
    try {
      const { outside, counted, lines } = judges({ spamd, akismetUrl: akismet.url });
      assert.equal(outside.anyOn(OFF), false);
      assert.deepEqual(await outside.judge(OFF, { ...submission(), email: 'x@mailinator.com' }), []);
      assert.deepEqual([spamd.requests.length, akismet.requests.length, counted.length, lines.length], [0, 0, 0, 0]);
    } finally {
      await spamd.close();
      await akismet.close();
    }
  });

  it('runs every judge together within one budget: a slow one does not hold the others', async () => {
    const spamd = await startSpamdStandIn(() => null);
    const akismet = await startAkismetStandIn(AKISMET_SPAM);
    try {
      const { outside, counted } = judges({ spamd, akismetUrl: akismet.url, budgetMs: 400 });
      const started = performance.now();
      const findings = await outside.judge(
        { spamAssassin: true, akismetKey: 'k', flagDisposableAddresses: true, flagSameMessage: true },
        { ...submission(), email: 'x@mailinator.com' },
      );
      assert.ok(performance.now() - started < 1500);
      assert.deepEqual(findings.map((f) => f.reason).sort(), ['Akismet: spam', 'disposable e-mail address']);
      assert.deepEqual([...counted].sort(), ['akismet spam', 'disposable spam', 'same_message ham', 'spamassassin timeout']);
    } finally {
      await spamd.close();
      await akismet.close();
    }
  });
});
