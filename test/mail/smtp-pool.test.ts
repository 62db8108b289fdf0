import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createMailer } from '../../src/mail/transport.js';
import { deliveryErrorOf } from '../helpers/delivery-errors.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { closedPort } from '../helpers/spamd-stand-in.js';

describe('SMTP connection pool', () => {
  /** Sends `count` messages at once through a fresh sink; answers how many connections were open at most. */
  async function peakConnections(query: string, count: number): Promise<number> {
    const sink = await startSmtpSink();
    const mailer = createMailer({
      smtpUrl: `${sink.url}${query}`,
      mailFrom: 'forms@example.test',
      publicUrl: 'https://forms.example.test',
      dataDir: '/nonexistent',
      database: { dialect: 'sqlite', file: '/nonexistent/formgate.db' },
    });
    try {
      await Promise.all(Array.from({ length: count }, (_, i) => mailer.send({ to: [`r${i}@example.com`], subject: `Message ${i}`, text: 'Hello' })));
      assert.equal(sink.messages.length, count);
      return sink.peakConnections;
    } finally {
      mailer.close();
      await sink.close();
    }
  }

  it('opens up to 10 connections for a backlog of messages', async () => {
    const peak = await peakConnections('', 40);
    assert.ok(peak > 5 && peak <= 10, `peak ${peak}`);
  });

  it('takes another bound from the URL (?maxConnections=2)', async () => {
    const peak = await peakConnections('?maxConnections=2', 20);
    assert.ok(peak >= 1 && peak <= 2, `peak ${peak}`);
  });

  it('fails a message as transient when the server cannot be reached or drops the connection, and keeps the process', async () => {
    const send = async (url: string) => {
      const mailer = createMailer({
        smtpUrl: url,
        mailFrom: 'forms@example.test',
        publicUrl: 'https://forms.example.test',
        dataDir: '/nonexistent',
        database: { dialect: 'sqlite', file: '/nonexistent/formgate.db' },
      });
      try {
        return await deliveryErrorOf(mailer.send({ to: ['r@example.com'], subject: 'Hello', text: 'Hello' }));
      } finally {
        mailer.close();
      }
    };
    const refused = await send(`smtp://127.0.0.1:${await closedPort()}`);
    assert.equal(refused.permanent, false);
    assert.match(refused.message, /ECONNREFUSED/);

    // greets, then hangs up in the middle of the conversation
    const dropping = createServer((socket) => {
      socket.write('220 stand-in ESMTP\r\n');
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    try {
      const dropped = await send(`smtp://127.0.0.1:${(dropping.address() as AddressInfo).port}`);
      assert.equal(dropped.permanent, false, dropped.message);
    } finally {
      await new Promise((resolve) => dropping.close(resolve));
    }
  });
});
