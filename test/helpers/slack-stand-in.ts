import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackPost {
  authorization: string | undefined;
  body: { channel?: string; text?: string; [key: string]: unknown };
}

/** How the stand-in answers: like Slack (`ok`), a Slack error code, or an HTTP status. */
export type SlackMode = { ok: true } | { error: string } | { status: number };

export interface SlackStandIn {
  /** What FORMGATE_SLACK_API_URL points at. */
  url: string;
  posts: SlackPost[];
  mode: SlackMode;
  close(): Promise<void>;
}

/** A stand-in for Slack's `chat.postMessage` on loopback: checks the bearer token and records every post. */
export async function startSlackStandIn(token: string): Promise<SlackStandIn> {
  const standIn: SlackStandIn = { url: '', posts: [], mode: { ok: true }, close };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/chat.postMessage') {
        response.writeHead(404).end();
        return;
      }
      const post: SlackPost = { authorization: request.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') };
      standIn.posts.push(post);
      const mode = standIn.mode;
      if ('status' in mode) return void response.writeHead(mode.status, { 'content-type': 'application/json' }).end('{"ok":false,"error":"internal_error"}');
      // Slack answers errors with HTTP 200 and ok:false
      const answer =
        post.authorization !== `Bearer ${token}`
          ? { ok: false, error: 'invalid_auth' }
          : 'error' in mode
            ? { ok: false, error: mode.error }
            : { ok: true, ts: '1.0' };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  function close(): Promise<void> {
    return new Promise((resolve) => server.close(() => resolve()));
  }
  return standIn;
}
