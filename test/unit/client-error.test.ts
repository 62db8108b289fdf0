import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { describe, it } from 'node:test';
import { answerClientError } from '../../src/web/client-error.js';

const DOCS = 'http://formgate.test/docs/errors';

/** A server with a request time limit injected (100 ms), checked every 20 ms, answering client errors as both surfaces do. */
async function serverWithShortTimeout(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer({ requestTimeout: 100, headersTimeout: 100, connectionsCheckingInterval: 20 }, (_request, response) => response.end('ok'));
  server.on(
    'clientError',
    answerClientError(() => DOCS),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Sends part of a request and waits (with a deadline) for whatever the server answers before it closes. */
function sendAndWaitForClose(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('the server did not close the connection within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('answerClientError', () => {
  it('answers a request that does not arrive in time with a 408 request_timeout problem and closes the connection', async () => {
    const server = await serverWithShortTimeout();
    try {
      // headers never finished: Node gives up after the injected limit
      const text = await sendAndWaitForClose(server.port, 'POST / HTTP/1.1\r\nHost: x\r\n');
      const [head, body] = text.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.match(head!, /\r\ncontent-type: application\/problem\+json\r\n/i);
      assert.match(head!, /\r\nconnection: close/i);
      assert.deepEqual(JSON.parse(body!), {
        type: `${DOCS}#request-timeout`,
        title: 'Request timeout',
        status: 408,
        detail: 'The request was not received in time.',
        code: 'request_timeout',
      });
    } finally {
      await server.close();
    }
  });
});
