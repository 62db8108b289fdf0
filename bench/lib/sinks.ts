import http from 'node:http';
import { startHelper, type Helper } from './children.js';

export interface Arrivals {
  count: number;
  firstAt: number | null;
  lastAt: number | null;
}

/** The SMTP sink and webhook receiver (bench/servers/sinks.ts), in a process of their own. */
export interface Sinks {
  smtpUrl: string;
  webhookUrl: string;
  stats(): Promise<{ emails: Arrivals; webhooks: Arrivals }>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSinks(): Promise<Sinks> {
  const helper: Helper<{ smtpPort: number; httpPort: number }> = await startHelper('servers/sinks.ts');
  const origin = `http://127.0.0.1:${helper.info.httpPort}`;
  return {
    smtpUrl: `smtp://127.0.0.1:${helper.info.smtpPort}`,
    webhookUrl: `${origin}/hook`,
    stats: async () => JSON.parse(await call('GET', `${origin}/stats`)) as { emails: Arrivals; webhooks: Arrivals },
    reset: async () => void (await call('POST', `${origin}/reset`)),
    stop: () => helper.stop(),
  };
}

function call(method: string, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
    request.end();
  });
}
