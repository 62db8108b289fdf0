import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived: what a signature is computed over. */
  rawBody: string;
}

/**
 * How the receiver answers: a fixed status (200, 410, 302 with a Location, 429…), 500 for the
 * first `failures` requests and 200 after, no answer at all, or a body that never ends.
 */
export type ReceiverMode = { status: number; body?: string } | { failures: number } | { hang: true } | { endless: true };

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hook` */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  mode: ReceiverMode;
  /** Bytes written by `endless` answers before the caller hung up. */
  endlessBytesWritten: number;
  close(): Promise<void>;
}

/** A real webhook receiver on loopback that records every request and answers as `mode` says. */
export async function startWebhookReceiver(mode: ReceiverMode = { status: 200 }): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: '', port: 0, requests: [], mode, endlessBytesWritten: 0, close };
  let failuresSoFar = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
      });
      const current = receiver.mode;
      if ('hang' in current) return; // the caller's timeout must end it
      if ('endless' in current) return void writeEndlessly(response);
      if ('failures' in current) {
        const fail = failuresSoFar < current.failures;
        if (fail) failuresSoFar += 1;
        return void response.writeHead(fail ? 500 : 200, { 'content-type': 'text/plain' }).end(fail ? 'failing' : 'ok');
      }
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (current.status >= 300 && current.status < 400) headers.location = 'http://127.0.0.1:1/elsewhere';
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

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
