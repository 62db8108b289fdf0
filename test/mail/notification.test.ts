import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldRows, headerText, notificationMessage, notificationMessageId, type NotificationInput } from '../../src/mail/notification.js';
import { messageIdDomain } from '../../src/mail/message-id.js';
import { createMailer } from '../../src/mail/transport.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';

function input(
  overrides: { controls?: Record<string, string> | null; data?: Record<string, unknown>; threading?: boolean; to?: string } = {},
): NotificationInput {
  return {
    form: { id: 'form1', name: 'Contact', emailThreading: overrides.threading ?? false },
    to: overrides.to ?? 'owner@example.com',
    submission: {
      id: 'sub1',
      createdAt: Date.UTC(2026, 10, 22, 9, 30),
      data: overrides.data ?? { name: 'Ada', email: 'ada@example.com', message: 'Line one\nLine <two>' },
      emailControls: overrides.controls ?? null,
    },
    idDomain: 'mail.example.org',
  };
}

describe('notification email', () => {
  it('lists every field, escaped, in HTML with a plain-text alternative, to its one recipient', () => {
    const message = notificationMessage(input({ data: { name: '<script>alert(1)</script>', tags: ['a', 'b'], car: { color: 'red' } } }));
    assert.deepEqual(message.to, ['owner@example.com']);
    assert.equal(message.subject, 'New submission: Contact');
    assert.ok(message.html!.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(!message.html!.includes('<script>'));
    assert.match(message.text, /^name: <script>alert\(1\)<\/script>$/m);
    assert.match(message.text, /^tags: a, b$/m);
    assert.match(message.text, /^car\.color: red$/m);
  });

  it('takes the default layout’s title from _email.template.title, drops it for "false", and drops the footer for _email.template.footer=false', () => {
    const standard = notificationMessage(input());
    assert.ok(standard.html!.includes('>New submission to Contact</h1>'));
    assert.match(standard.text, /^New submission to Contact \(2026-11-22 09:30 UTC\)$/m);
    assert.match(standard.text, /^Submission sub1$/m);

    const custom = notificationMessage(input({ controls: { '_email.template.title': 'A <new> lead\r\nfrom the site' } }));
    assert.ok(custom.html!.includes('>A &lt;new&gt; lead from the site</h1>'), 'escaped, on one line');
    assert.ok(!custom.html!.includes('New submission to'));
    assert.match(custom.text, /^A <new> lead from the site \(2026-11-22 09:30 UTC\)$/m);
    const long = notificationMessage(input({ controls: { '_email.template.title': 'é'.repeat(500) } }));
    assert.ok(long.html!.includes(`>${'é'.repeat(200)}</h1>`), 'capped at 200 characters');

    const bare = notificationMessage(input({ controls: { '_email.template.title': 'false', '_email.template.footer': 'false' } }));
    assert.ok(!bare.html!.includes('<h1'), 'no title');
    assert.ok(!bare.html!.includes('Submission sub1') && !bare.text.includes('Submission sub1'), 'no footer');
    assert.match(bare.text, /^2026-11-22 09:30 UTC$/m);
    assert.match(bare.text, /^name: Ada$/m, 'the fields still');
  });

  it('applies _email.subject and _email.from, neutralising line breaks and over-long values', () => {
    const message = notificationMessage(
      input({ controls: { '_email.subject': 'Hello\r\nBcc: victim@example.com', '_email.from': `Website${'x'.repeat(100)}` } }),
    );
    assert.equal(message.subject, 'Hello Bcc: victim@example.com');
    assert.equal(message.fromName!.length, 64);
    assert.equal(headerText('a\u2028b\u0000c', 10), 'a b c');
    // C1 controls too: U+0085 (NEL) is a line break to some readers
    assert.equal(headerText('a\u0085b\u009fc\u0080d', 10), 'a b c d');
    assert.equal(headerText('x'.repeat(300), 200).length, 200);
  });

  it('removes bidirectional controls and invisible characters from the subject and the sender’s name (issue 38, item 17)', () => {
    assert.equal(headerText('Invoice \u202Efdp.exe', 100), 'Invoice fdp.exe');
    assert.equal(headerText('\u2067Ada\u2069 \u200F\u200Bpaid', 100), 'Ada paid');
    const message = notificationMessage(input({ controls: { '_email.subject': 'Your \u202Efdp.exe', '_email.from': 'Bank\u202E knaB' } }));
    assert.equal(message.subject, 'Your fdp.exe');
    assert.equal(message.fromName, 'Bank knaB');
    // the fields' names are labels in the email (and in chat messages, which list the same rows)
    assert.deepEqual(fieldRows({ 'total\u202E': '12', nested: { 'a\u2066b': 'x' } }), [
      ['total', '12'],
      ['nested.ab', 'x'],
    ]);
  });

  it('replies to the submitter: _email.replyto, then _replyto, then email, then mail; none when none is valid', () => {
    assert.equal(notificationMessage(input({ controls: { '_email.replyto': 'r@example.com', _replyto: 'o@example.com' } })).replyTo, 'r@example.com');
    assert.equal(notificationMessage(input({ controls: { _replyto: 'o@example.com' } })).replyTo, 'o@example.com');
    assert.equal(notificationMessage(input()).replyTo, 'ada@example.com');
    assert.equal(notificationMessage(input({ data: { email: 'bad\r\nBcc: x@example.com' } })).replyTo, undefined);
  });

  it('threads every notification of a form when emailThreading is on, and not otherwise', () => {
    const threaded = notificationMessage(input({ threading: true }));
    assert.match(threaded.messageId!, /^<sub1\.[0-9a-f]{16}@mail\.example\.org>$/);
    assert.equal(threaded.headers!['In-Reply-To'], '<form-form1@mail.example.org>');
    assert.equal(threaded.headers!.References, '<form-form1@mail.example.org>');
    const alone = notificationMessage(input({ threading: false }));
    assert.equal(alone.headers!['In-Reply-To'], undefined);
    assert.equal(alone.headers!.References, undefined);
  });

  it('gives each recipient’s copy a Message-ID of its own, the same on every retry, in the same thread', () => {
    const owner = notificationMessage(input({ threading: true, to: 'owner@example.com' }));
    const team = notificationMessage(input({ threading: true, to: 'team@example.com' }));
    assert.deepEqual(team.to, ['team@example.com']);
    assert.notEqual(owner.messageId, team.messageId);
    assert.equal(notificationMessage(input({ threading: true, to: 'Owner@Example.com' })).messageId, owner.messageId);
    assert.equal(owner.messageId, notificationMessageId('sub1', 'owner@example.com', 'mail.example.org'));
    assert.equal(owner.headers!.References, team.headers!.References);
    assert.equal(owner.headers!['In-Reply-To'], '<form-form1@mail.example.org>');
  });

  it('uses the rendered template when the form has one', () => {
    const message = notificationMessage({ ...input(), rendered: { html: '<p>Custom</p>', text: 'Custom' } });
    assert.equal(message.html, '<p>Custom</p>');
    assert.equal(message.text, 'Custom');
    // a template places the submission's link itself ({{submissionUrl}}): nothing is added to it
    const linked = notificationMessage({
      ...input(),
      submissionUrl: 'https://forms.example/submissions/sub1',
      rendered: { html: '<p>Custom</p>', text: 'Custom' },
    });
    assert.equal(linked.html, '<p>Custom</p>');
    assert.equal(linked.text, 'Custom');
  });

  it('links the default layout to the submission’s page, “Open in Formgate”, in HTML and text, above the footer', () => {
    const url = 'https://forms.example/submissions/sub1';
    const message = notificationMessage({ ...input(), submissionUrl: url });
    assert.match(message.text, /\nmessage: Line one\nLine <two>\n\nOpen in Formgate: https:\/\/forms\.example\/submissions\/sub1\n\nSubmission sub1$/);
    assert.deepEqual(
      [...message.html!.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]),
      [[url, 'Open in Formgate']],
    );
    assert.ok(message.html!.indexOf('Open in Formgate') < message.html!.indexOf('Submission sub1'));
    // with no footer, the link stays
    const bare = notificationMessage({ ...input({ controls: { '_email.template.footer': 'false' } }), submissionUrl: url });
    assert.ok(bare.text.endsWith(`\n\nOpen in Formgate: ${url}`), bare.text);
    // escaped as an attribute in HTML, as it is in text
    const odd = notificationMessage({ ...input(), submissionUrl: 'https://forms.example/submissions/a"b&c<d>' });
    assert.ok(odd.html!.includes('<a href="https://forms.example/submissions/a&quot;b&amp;c&lt;d&gt;" '), odd.html);
    assert.match(odd.text, /^Open in Formgate: https:\/\/forms\.example\/submissions\/a"b&c<d>$/m);
    // none without an address
    const none = notificationMessage(input());
    assert.ok(!none.html!.includes('<a ') && !none.text.includes('Open in Formgate'));
  });

  it('says where to download files above the link, and links each file’s name to the same page', () => {
    const url = 'https://forms.example/submissions/sub1';
    const file = { id: 'fil_1', field: 'cv', name: 'cv.pdf', type: 'application/pdf', size: 2048 };
    const message = notificationMessage({
      ...input({ data: { name: 'Ada', cv: { name: 'cv.pdf', url: 'https://forms.example/public/v1/submissions/sub1/files/fil_1' } } }),
      files: [file],
      submissionUrl: url,
    });
    assert.match(
      message.text,
      /\ncv: cv\.pdf \(2\.0 KB, application\/pdf\)\n\nDownload the file from the submission's page in Formgate \(you will be asked to log in\)\.\nOpen in Formgate: https:\/\/forms\.example\/submissions\/sub1\n/,
    );
    assert.deepEqual(
      [...message.html!.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]),
      [
        [url, 'cv.pdf'],
        [url, 'Open in Formgate'],
      ],
    );
  });

  it('flattens nested fields into dotted rows', () => {
    assert.deepEqual(fieldRows({ a: { b: { c: '1' } }, list: [{ x: 'y' }], empty: null }), [
      ['a.b.c', '1'],
      ['list[0].x', 'y'],
      ['empty', ''],
    ]);
  });

  it('sends a subject and a sender name that look like encoded words as the text they are, not decoded', async () => {
    const sink = await startSmtpSink();
    const mailer = createMailer({
      smtpUrl: sink.url,
      mailFrom: 'Formgate <forms@mail.example.org>',
      publicUrl: 'https://forms.example.org',
      dataDir: '/nonexistent',
      database: { dialect: 'sqlite', file: '/nonexistent/formgate.db' },
    });
    const lookalikes = [
      '=?UTF-8?Q?Hi=0D=0ABcc:_victim@example.com?=',
      `=?UTF-8?B?${Buffer.from('Hi\r\nBcc: victim@example.com').toString('base64')}?= and more`,
    ];
    try {
      for (const text of lookalikes) {
        const message = notificationMessage(input({ controls: { '_email.subject': text, '_email.from': text } }));
        await mailer.send(message);
      }
      const mails = await sink.waitFor(lookalikes.length);
      for (const [n, text] of lookalikes.entries()) {
        assert.equal(mails[n]!.parsed.subject, text);
        assert.equal(mails[n]!.parsed.from?.value[0]?.name, text.slice(0, 64));
      }
    } finally {
      mailer.close();
      await sink.close();
    }
  });

  it('arrives over SMTP with its headers intact and no injected header', async () => {
    const sink = await startSmtpSink();
    const mailer = createMailer({
      smtpUrl: sink.url,
      mailFrom: 'Formgate <forms@mail.example.org>',
      publicUrl: 'https://forms.example.org',
      dataDir: '/nonexistent',
      database: { dialect: 'sqlite', file: '/nonexistent/formgate.db' },
    });
    try {
      const { fromName: _fromName, ...message } = notificationMessage(
        input({ threading: true, controls: { '_email.subject': 'Hi\r\nBcc: victim@example.com' } }),
      );
      await mailer.send(message);
      const [mail] = await sink.waitFor(1);
      assert.deepEqual(mail!.envelopeTo, ['owner@example.com']);
      assert.equal(mail!.parsed.headers.get('to') ? (mail!.parsed.to as { text: string }).text : '', 'owner@example.com');
      assert.equal(mail!.envelopeFrom, 'forms@mail.example.org');
      assert.equal(mail!.parsed.from?.value[0]?.address, 'forms@mail.example.org');
      assert.ok(mail!.parsed.date, 'the message carries a Date header');
      assert.equal(mail!.parsed.subject, 'Hi Bcc: victim@example.com');
      assert.equal(mail!.parsed.headers.get('bcc'), undefined);
      assert.equal(mail!.parsed.messageId, notificationMessageId('sub1', 'owner@example.com', 'mail.example.org'));
      assert.equal(mail!.parsed.inReplyTo, '<form-form1@mail.example.org>');
      assert.equal(mail!.parsed.replyTo?.value[0]?.address, 'ada@example.com');
      assert.match(mail!.parsed.text ?? '', /message: Line one/);
    } finally {
      mailer.close();
      await sink.close();
    }
  });
});

describe('Message-ID domain', () => {
  it('is the public URL’s host: a name or an address as it may stand in a Message-ID, never the sender’s localhost', () => {
    assert.equal(messageIdDomain('https://Forms.Example.org'), 'forms.example.org');
    assert.equal(messageIdDomain('http://127.0.0.1:8080'), '127.0.0.1');
    assert.equal(messageIdDomain('http://[::1]:8080'), '[::1]');
    assert.equal(messageIdDomain('https://café.example'), 'xn--caf-dma.example');
    assert.equal(messageIdDomain('not a url'), 'formgate.invalid');
  });
});
