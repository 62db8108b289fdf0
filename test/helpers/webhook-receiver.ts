import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived: what a signature is computed over. */
  rawBody: string;
  /** The status it was answered with; null when it got no (whole) answer. */
  answered: number | null;
  /** Whether its exchange is over (answered, or the caller hung up): a hung try stays open until the caller's timeout. */
  closed: boolean;
}

/**
 * How the receiver answers: a fixed status (200, 410, 302 with a Location, 429…), 500 for the
 * first `failures` requests and 200 after, no answer at all, a body that never ends, the
 * connection destroyed as soon as a request arrives, or reset in the middle of a 200's body.
 */
export type ReceiverMode =
  | { status: number; body?: string }
  | { failures: number }
  | { hang: true }
  | { endless: true }
  | { destroy: true }
  | { resetMidBody: true };

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hook` */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  mode: ReceiverMode;
  /** Bytes written by `endless` answers before the caller hung up. */
  endlessBytesWritten: number;
  close(): Promise<void>;
  /** Told of each request as it arrives (before it is answered). */
  onRequest?: (received: ReceivedRequest) => void;
}

/**
 * A real webhook receiver on loopback that records every request and answers as `mode` says; on
 * `port` when given (a receiver coming back where a closed one was), else on a free one.
 */
export async function startWebhookReceiver(mode: ReceiverMode = { status: 200 }, port = 0): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: '', port: 0, requests: [], mode, endlessBytesWritten: 0, close };
  let failuresSoFar = 0;
  const server = createServer((request, response) => {
    const record = (rawBody: string): ReceivedRequest => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawBody,
        answered: null,
        closed: false,
      };
      response.on('close', () => {
        received.closed = true;
      });
      receiver.requests.push(received);
      receiver.onRequest?.(received);
      return received;
    };
    if ('destroy' in receiver.mode) {
      record('');
      return void request.socket.destroy();
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = record(Buffer.concat(chunks).toString('utf8'));
      const current = receiver.mode;
      if ('hang' in current) return; // the caller's timeout must end it
      if ('endless' in current) return void writeEndlessly(response);
      if ('destroy' in current) return void request.socket.destroy();
      if ('resetMidBody' in current) {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        response.write('ok, recei');
        return void setImmediate(() => request.socket.resetAndDestroy());
      }
      if ('failures' in current) {
        const fail = failuresSoFar < current.failures;
        if (fail) failuresSoFar += 1;
        received.answered = fail ? 500 : 200;
        return void response.writeHead(fail ? 500 : 200, { 'content-type': 'text/plain' }).end(fail ? 'failing' : 'ok');
      }
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (current.status >= 300 && current.status < 400) headers.location = 'http://127.0.0.1:1/elsewhere';
      received.answered = current.status;
      response.writeHead(current.status, headers).end(current.body ?? '');
    });
  });

  function writeEndlessly(response: ServerResponse): void {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    let closed = false;
    response.on('close', () => (closed = true));
    const pump = () => {
      while (!closed) {
        receiver.endlessBytesWritten += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
    };
    response.on('error', () => {});
    pump();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;

  function close(): Promise<void> {
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  return receiver;
}
