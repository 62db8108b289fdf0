import http from 'node:http';
import type net from 'node:net';

/** One comment-check request as the stand-in received it. */
export interface AkismetRequest {
  path: string;
  contentType: string;
  params: URLSearchParams;
}

/** What the stand-in answers: status, body and headers, or null to hold the request open without answering. */
export type AkismetReply = (request: AkismetRequest) => { status?: number; body: string; headers?: Record<string, string> } | null;

export const AKISMET_HAM: AkismetReply = () => ({ body: 'false' });
export const AKISMET_SPAM: AkismetReply = () => ({ body: 'true' });
export const AKISMET_DISCARD: AkismetReply = () => ({ body: 'true', headers: { 'X-akismet-pro-tip': 'discard' } });
// as Akismet answers a key it does not know
export const AKISMET_INVALID: AkismetReply = () => ({ body: 'invalid', headers: { 'X-akismet-debug-help': 'We were unable to verify your API key.' } });
export const AKISMET_ERROR: AkismetReply = () => ({ status: 500, body: 'Internal Server Error' });
export const AKISMET_SILENT: AkismetReply = () => null;

export interface AkismetStandIn {
  /** For FORMGATE_AKISMET_URL: `http://127.0.0.1:<port>/1.1`. */
  url: string;
  requests: AkismetRequest[];
  reply: AkismetReply;
  close(): Promise<void>;
}

/** An Akismet stand-in on loopback answering `POST /1.1/comment-check` as Akismet documents it. */
export async function startAkismetStandIn(reply: AkismetReply = AKISMET_HAM): Promise<AkismetStandIn> {
  const sockets = new Set<net.Socket>();
  const standIn: AkismetStandIn = { url: '', requests: [], reply, close: async () => undefined };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        path: request.url ?? '',
        contentType: request.headers['content-type'] ?? '',
        params: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
      };
      standIn.requests.push(received);
      if (received.path !== '/1.1/comment-check' || request.method !== 'POST') {
        response.writeHead(404).end('not found');
        return;
      }
      const answer = standIn.reply(received);
      if (answer === null) return; // held: the client's budget ends it
      response.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/1.1`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return standIn;
}
