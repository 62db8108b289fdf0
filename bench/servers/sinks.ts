/**
 * Where deliveries land during the benchmark: an SMTP sink (`smtp-server`, every message accepted
 * and dropped) and a webhook receiver answering 204. `GET /stats` on the receiver's port tells how
 * many of each arrived and when the first and the last came, which gives the drain rate.
 */
import http from 'node:http';
import { SMTPServer } from 'smtp-server';

interface Arrivals {
  count: number;
  firstAt: number | null;
  lastAt: number | null;
}

const emails: Arrivals = { count: 0, firstAt: null, lastAt: null };
const webhooks: Arrivals = { count: 0, firstAt: null, lastAt: null };

function arrived(arrivals: Arrivals): void {
  const now = performance.timeOrigin + performance.now();
  arrivals.count++;
  arrivals.firstAt ??= now;
  arrivals.lastAt = now;
}

function reset(): void {
  for (const arrivals of [emails, webhooks]) Object.assign(arrivals, { count: 0, firstAt: null, lastAt: null });
}

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () => {
      arrived(emails);
      callback();
    });
  },
});

const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/hook') {
      arrived(webhooks);
      response.writeHead(204).end();
    } else if (request.url === '/stats') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ emails, webhooks }));
    } else if (request.url === '/reset' && request.method === 'POST') {
      reset();
      response.writeHead(204).end();
    } else response.writeHead(404).end();
  });
});
receiver.keepAliveTimeout = 5000;

smtp.listen(0, '127.0.0.1', () => {
  receiver.listen(0, '127.0.0.1', () => {
    const smtpPort = (smtp.server.address() as { port: number }).port;
    const httpPort = (receiver.address() as { port: number }).port;
    process.stdout.write(`${JSON.stringify({ smtpPort, httpPort })}\n`);
  });
});
