import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askSpamd, parseSpamdResponse, spamcRequest, SpamdError } from '../../src/mail/spamd.js';
import { closedPort, HAM, SPAM, spamdAnswer, startSpamdStandIn, type SpamdStandIn } from '../helpers/spamd-stand-in.js';

const MESSAGE = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: Hi\r\n\r\nHello \u00e9t\u00e9\r\n', 'utf8');

function parse(text: string) {
  return parseSpamdResponse(Buffer.from(text, 'latin1'));
}

function assertSpamdError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SpamdError, `a SpamdError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('spamcRequest', () => {
  it('is a SYMBOLS SPAMC/1.5 request whose Content-length counts the bytes of the message', () => {
    const request = spamcRequest(MESSAGE).toString('latin1');
    assert.equal(request, `SYMBOLS SPAMC/1.5\r\nContent-length: ${MESSAGE.length}\r\n\r\n${MESSAGE.toString('latin1')}`);
    assert.notEqual(MESSAGE.length, MESSAGE.toString('utf8').length, 'the sample has multi-byte characters');
  });
});

describe('parseSpamdResponse', () => {
  it('reads a SYMBOLS answer: verdict, score, threshold and the rules that hit', () => {
    assert.deepEqual(parse('SPAMD/1.1 0 EX_OK\r\nContent-length: 27\r\nSpam: True ; 7.3 / 5.0\r\n\r\nHTML_MESSAGE,MISSING_DATE\r\n'), {
      spam: true,
      score: 7.3,
      threshold: 5,
      symbols: ['HTML_MESSAGE', 'MISSING_DATE'],
    });
    assert.deepEqual(parse(spamdAnswer({ spam: false, score: -0.1, symbols: ['ALL_TRUSTED'] })), {
      spam: false,
      score: -0.1,
      threshold: 5,
      symbols: ['ALL_TRUSTED'],
    });
  });

  it('reads a CHECK answer (no body), headers in any order and case, Yes/No verdicts', () => {
    assert.deepEqual(parse('SPAMD/1.1 0 EX_OK\r\nSpam: False ; 1.2 / 5.0\r\n\r\n'), { spam: false, score: 1.2, threshold: 5, symbols: [] });
    assert.deepEqual(parse('SPAMD/1.5 0 EX_OK\r\nspam: Yes ; 1003 / 6.5\r\ncontent-length: 0\r\n\r\n'), {
      spam: true,
      score: 1003,
      threshold: 6.5,
      symbols: [],
    });
    assert.equal(parse('SPAMD/1.1 0 EX_OK\r\nSpam: No ; 0.0 / 5.0\r\n\r\n').spam, false);
  });

  it('refuses an error status, naming it', () => {
    assertSpamdError(() => parse('SPAMD/1.0 76 Bad header line: (Content-Length mismatch: Expected 30 bytes, got 3 bytes)\r\n'), /refused.*76 Bad header line/);
    assertSpamdError(() => parse('SPAMD/1.1 74 EX_IOERR\r\n\r\n'), /74 EX_IOERR/);
  });

  it('refuses anything that is not a complete SPAMD answer', () => {
    assertSpamdError(() => parse(''), /not a SPAMD answer/);
    assertSpamdError(() => parse('HTTP/1.1 200 OK\r\n\r\nhello'), /not a SPAMD answer/);
    assertSpamdError(() => parse('SPAMD/1.1 0 EX_OK\r\nSpam: True ; 7.3 / 5.0\r\n'), /ended inside its headers/);
    assertSpamdError(() => parse('SPAMD/1.1 0 EX_OK\r\nContent-length: 0\r\n\r\n'), /no Spam header/);
    assertSpamdError(() => parse('SPAMD/1.1 0 EX_OK\r\nSpam: Maybe ; 7.3 / 5.0\r\n\r\n'), /unreadable Spam header/);
    assertSpamdError(() => parse('SPAMD/1.1 0 EX_OK\r\nSpam: True ; lots / 5.0\r\n\r\n'), /unreadable Spam header/);
    assertSpamdError(() => parse('SPAMD/1.1 0 EX_OK\r\nContent-length: x\r\nSpam: True ; 7.3 / 5.0\r\n\r\n'), /Content-length/);
    assertSpamdError(() => parse('SPAMD/1.1 0 EX_OK\r\nContent-length: 40\r\nSpam: True ; 7.3 / 5.0\r\n\r\nHTML_MESSAGE'), /cut short: 12 of 40/);
  });
});

describe('askSpamd', () => {
  let standIn: SpamdStandIn;
  before(async () => {
    standIn = await startSpamdStandIn();
  });
  after(() => standIn.close());
  const address = () => ({ host: '127.0.0.1', port: standIn.port });

  it('sends the message with SYMBOLS and returns the verdict', async () => {
    standIn.reply = SPAM;
    const verdict = await askSpamd(address(), MESSAGE);
    assert.deepEqual(verdict, { spam: true, score: 7.3, threshold: 5, symbols: ['HTML_MESSAGE', 'LOTS_OF_MONEY', 'URIBL_BLOCKED'] });
    const request = standIn.requests.at(-1)!;
    assert.equal(request.command, 'SYMBOLS SPAMC/1.5');
    assert.equal(request.headers['content-length'], String(MESSAGE.length));
    assert.deepEqual(request.body, MESSAGE);
    standIn.reply = HAM;
    assert.equal((await askSpamd(address(), MESSAGE)).spam, false);
  });

  it('fails with a SpamdError naming the address when nothing listens', async () => {
    const port = await closedPort();
    await assert.rejects(askSpamd({ host: '127.0.0.1', port }, MESSAGE), (error: unknown) => {
      assert.ok(error instanceof SpamdError);
      assert.match(error.message, new RegExp(`^spamd at 127\\.0\\.0\\.1:${port}: could not be reached \\(ECONNREFUSED\\)$`));
      return true;
    });
  });

  it('fails when spamd does not answer within the timeout', async () => {
    standIn.reply = () => null;
    // the code's own deadline decides: its error names the timeout it was given
    await assert.rejects(askSpamd(address(), MESSAGE, { timeoutMs: 200 }), /no answer within 200 ms/);
  });

  it('fails on an answer larger than the cap, a garbled answer, or a connection closed without one', async () => {
    standIn.reply = () => spamdAnswer({ spam: false, score: 0, symbols: Array.from({ length: 5_000 }, (_, i) => `RULE_${i}`) });
    await assert.rejects(askSpamd(address(), MESSAGE, { maxResponseBytes: 4096 }), /answer larger than 4096 bytes/);
    standIn.reply = () => 'SPAMD/1.1 0 EX_OK\r\nSpam: perhaps\r\n\r\n';
    await assert.rejects(askSpamd(address(), MESSAGE), (error: unknown) => error instanceof SpamdError && /unreadable Spam header/.test(error.message));
    standIn.reply = () => '';
    await assert.rejects(askSpamd(address(), MESSAGE), (error: unknown) => error instanceof SpamdError && /not a SPAMD answer/.test(error.message));
  });
});
