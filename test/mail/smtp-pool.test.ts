import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMailer } from '../../src/mail/transport.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';

describe('SMTP connection pool', () => {
  /** Sends `count` messages at once through a fresh sink; answers how many connections were open at most. */
  async function peakConnections(query: string, count: number): Promise<number> {
    const sink = await startSmtpSink();
    const mailer = createMailer({ smtpUrl: `${sink.url}${query}`, mailFrom: 'forms@example.test', dataDir: '/nonexistent' });
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
});
