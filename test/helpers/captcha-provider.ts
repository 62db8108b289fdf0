import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ThirdPartyCaptcha } from '../../src/domain/captcha-providers.js';
import type { CaptchaVerifyUrls } from '../../src/domain/captcha-providers.js';

/** What the stand-in accepts: this secret and token, and (unless undefined) only from this visitor address. */
export interface CaptchaExpectation {
  secret: string;
  token: string;
  ip?: string;
}

/** `verify`: answer like the real provider. `error`: HTTP 500. `garbage`: 200 with an HTML page. `hang`: never answer. */
export type CaptchaProviderMode = 'verify' | 'error' | 'garbage' | 'hang';

/** One request the stand-in received, with the secret, token and address read the provider's way. */
export interface CaptchaRequest {
  provider: ThirdPartyCaptcha;
  method: string;
  contentType: string;
  /** The body's fields (urlencoded or JSON), as received. */
  body: Record<string, unknown>;
  secret: unknown;
  token: unknown;
  /** `remoteip`; always undefined for Botpoison, which takes none. */
  ip: unknown;
}

export interface CaptchaProvider {
  /** Each provider's verify URL on this stand-in: pass as `captchaVerifyUrls` or the FORMGATE_*_VERIFY_URL variables. */
  urls: CaptchaVerifyUrls;
  env: { botpoisonVerifyUrl: string; recaptchaVerifyUrl: string; hcaptchaVerifyUrl: string; turnstileVerifyUrl: string };
  /** Every request received, in order (cleared by `reset`). */
  requests: CaptchaRequest[];
  /** The requests one provider received. */
  requestsFor(provider: ThirdPartyCaptcha): CaptchaRequest[];
  /** What every provider accepts from now on, or what one provider accepts. */
  expect(expectation: CaptchaExpectation): void;
  expect(provider: ThirdPartyCaptcha, expectation: CaptchaExpectation): void;
  /** How every provider answers from now on, or how one does. */
  setMode(mode: CaptchaProviderMode, provider?: ThirdPartyCaptcha): void;
  /** Forgets the requests and answers normally again; expectations stay. */
  reset(): void;
  close(): Promise<void>;
}

export const CAPTCHA_SECRET = 'stand-in-secret';
export const CAPTCHA_TOKEN = 'stand-in-token';

const PATHS: Record<ThirdPartyCaptcha, string> = {
  BOTPOISON: '/botpoison',
  GOOGLE_RECAPTCHA_V2: '/recaptcha',
  HCAPTCHA: '/hcaptcha',
  TURNSTILE: '/turnstile',
};
const PROVIDERS = Object.keys(PATHS) as ThirdPartyCaptcha[];
const MAX_BODY = 1024 * 1024;

/**
 * A stand-in for the four CAPTCHA providers on 127.0.0.1, speaking each one's wire format on its own
 * path. It accepts `expectation` (by default CAPTCHA_SECRET and CAPTCHA_TOKEN from any address).
 * Like the real ones, reCAPTCHA and hCaptcha read only urlencoded bodies, Turnstile also JSON, and
 * Botpoison only JSON, so a request in the wrong format fails as it would in production.
 */
export async function startCaptchaProvider(expectation: CaptchaExpectation = { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN }): Promise<CaptchaProvider> {
  const expectations = new Map(PROVIDERS.map((p) => [p, { ...expectation }]));
  const modes = new Map<ThirdPartyCaptcha, CaptchaProviderMode>(PROVIDERS.map((p) => [p, 'verify']));
  const requests: CaptchaRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const provider = PROVIDERS.find((p) => PATHS[p] === new URL(req.url ?? '/', 'http://x').pathname);
    if (!provider) return send(res, 404, { error: 'not found' });
    readBody(req).then(
      (raw) => answer(provider, req, res, raw),
      () => send(res, 400, { error: 'unreadable body' }),
    );
  });

  function answer(provider: ThirdPartyCaptcha, req: IncomingMessage, res: ServerResponse, raw: string): void {
    const contentType = req.headers['content-type'] ?? '';
    const body = parseBody(provider, contentType, raw);
    const isBotpoison = provider === 'BOTPOISON';
    requests.push({
      provider,
      method: req.method ?? '',
      contentType,
      body,
      secret: isBotpoison ? body.secretKey : body.secret,
      token: isBotpoison ? body.solution : body.response,
      ip: isBotpoison ? undefined : body.remoteip,
    });
    const mode = modes.get(provider);
    if (mode === 'hang') return void hanging.add(res);
    if (mode === 'error') {
      send(res, 500, { error: 'internal error' });
      return;
    }
    if (mode === 'garbage') {
      sendText(res, 200, 'text/html', '<html><body>Service temporarily moved</body></html>');
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, { error: 'method not allowed' });
      return;
    }
    const last = requests[requests.length - 1]!;
    const codes = problemsOf(expectations.get(provider)!, last);
    if (isBotpoison) {
      send(res, 200, codes.length ? { ok: false, message: codes[0] } : { ok: true });
      return;
    }
    send(res, 200, codes.length ? { success: false, 'error-codes': codes } : { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const urls = Object.fromEntries(PROVIDERS.map((p) => [p, base + PATHS[p]])) as CaptchaVerifyUrls;

  return {
    urls,
    env: {
      botpoisonVerifyUrl: urls.BOTPOISON,
      recaptchaVerifyUrl: urls.GOOGLE_RECAPTCHA_V2,
      hcaptchaVerifyUrl: urls.HCAPTCHA,
      turnstileVerifyUrl: urls.TURNSTILE,
    },
    requests,
    requestsFor: (provider) => requests.filter((r) => r.provider === provider),
    expect(first: ThirdPartyCaptcha | CaptchaExpectation, second?: CaptchaExpectation) {
      if (typeof first === 'string') expectations.set(first, { ...second! });
      else for (const p of PROVIDERS) expectations.set(p, { ...first });
    },
    setMode(mode, provider) {
      for (const p of provider ? [provider] : PROVIDERS) modes.set(p, mode);
    },
    reset() {
      requests.length = 0;
      for (const p of PROVIDERS) modes.set(p, 'verify');
      releaseHanging();
    },
    async close() {
      releaseHanging();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function releaseHanging(): void {
    for (const res of hanging) res.destroy();
    hanging.clear();
  }
}

/** The providers' own error codes for what differs from the expectation (the address check is the stand-in's own). */
function problemsOf(expected: CaptchaExpectation, got: CaptchaRequest): string[] {
  if (got.provider === 'BOTPOISON') {
    if (got.secret !== expected.secret) return ['Invalid secret key'];
    if (got.token !== expected.token) return ['Invalid solution'];
    return [];
  }
  const codes: string[] = [];
  if (typeof got.secret !== 'string' || got.secret === '') codes.push('missing-input-secret');
  else if (got.secret !== expected.secret) codes.push('invalid-input-secret');
  if (typeof got.token !== 'string' || got.token === '') codes.push('missing-input-response');
  else if (got.token !== expected.token) codes.push('invalid-input-response');
  if (codes.length === 0 && expected.ip !== undefined && got.ip !== expected.ip) codes.push('remoteip-mismatch');
  return codes;
}

function parseBody(provider: ThirdPartyCaptcha, contentType: string, raw: string): Record<string, unknown> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const acceptsJson = provider === 'BOTPOISON' || provider === 'TURNSTILE';
  const acceptsForm = provider !== 'BOTPOISON';
  if (type === 'application/json' && acceptsJson) {
    try {
      const value: unknown = JSON.parse(raw);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  if (type === 'application/x-www-form-urlencoded' && acceptsForm) return Object.fromEntries(new URLSearchParams(raw));
  return {};
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, 'application/json', JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
