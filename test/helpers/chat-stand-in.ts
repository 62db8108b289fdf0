import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatPost {
  /** The path posted to: `/slack/services/…`, `/discord/api/webhooks/…`, `/teams/…` or `/telegram/bot<token>/sendMessage`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One answer the stand-in gives instead of the service's usual one. */
export interface ChatAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface ChatStandIn {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** A Slack incoming webhook URL on the stand-in. */
  slackUrl: string;
  discordUrl: string;
  teamsUrl: string;
  /** What FORMGATE_TELEGRAM_API_URL points at. */
  telegramApiUrl: string;
  posts: ChatPost[];
  /** Answers given, in order, to the next posts (whatever the service); the usual answer after. */
  next: ChatAnswer[];
  close(): Promise<void>;
}

/** A Telegram bot token of the right shape. */
export const TELEGRAM_TOKEN = '123456789:AAE_stand-in_token_abcdefghijklmnopqrstu';

/**
 * Stand-ins for the four chat services on one loopback port, each answering as the real one does
 * when it takes a message: Slack `200 ok`, Discord `204`, Teams `202`, Telegram `{"ok":true}` (and
 * `401 Unauthorized` for another bot token). `next` makes it answer otherwise (errors, 429s).
 */
export async function startChatStandIn(): Promise<ChatStandIn> {
  const standIn: ChatStandIn = { url: '', slackUrl: '', discordUrl: '', teamsUrl: '', telegramApiUrl: '', posts: [], next: [], close };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      standIn.posts.push({ path, headers: request.headers, body });
      const answer = standIn.next.shift();
      if (answer) return void response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      if (path.startsWith('/slack/')) return void response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (path.startsWith('/discord/')) return void response.writeHead(204).end();
      if (path.startsWith('/teams/')) return void response.writeHead(202).end();
      if (path.startsWith('/telegram/')) {
        if (path !== `/telegram/bot${TELEGRAM_TOKEN}/sendMessage`)
          return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":401,"description":"Unauthorized"}');
        return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"result":{"message_id":1}}');
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.slackUrl = `${standIn.url}/slack/services/T000/B000/slacksecretXYZ1`;
  standIn.discordUrl = `${standIn.url}/discord/api/webhooks/42/discordsecretXYZ2`;
  standIn.teamsUrl = `${standIn.url}/teams/workflows/abc/triggers/manual/paths/invoke?sig=teamssecretXYZ3`;
  standIn.telegramApiUrl = `${standIn.url}/telegram`;
  function close(): Promise<void> {
    return new Promise((resolve) => server.close(() => resolve()));
  }
  return standIn;
}
