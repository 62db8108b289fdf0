import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TestEmailOutcome } from '../services/mail-check.js';

const COOKIE = 'fg_mail_test';

/** What the admin page's mail section shows after a test: its outcome, or that the hourly limit refused it. */
export type MailTestResult = TestEmailOutcome | { refused: number };

/**
 * The flash of the SMTP test: shown in the mail section rather than at the top of the page, and as a
 * success or a failure. A signed cookie read once, like flash.ts; long texts are cut to fit a cookie.
 */
export function setMailTestResult(reply: FastifyReply, result: MailTestResult): void {
  const cut = Object.fromEntries(Object.entries(result).map(([key, value]) => [key, typeof value === 'string' ? value.slice(0, 600) : value]));
  reply.setCookie(COOKIE, JSON.stringify(cut), {
    path: '/admin',
    httpOnly: true,
    sameSite: 'lax',
    signed: true,
    maxAge: 60,
    secure: reply.request.protocol === 'https',
  });
}

/** The result a test left for this page, if any; shown once. */
export function takeMailTestResult(request: FastifyRequest, reply: FastifyReply): MailTestResult | null {
  const raw = request.cookies[COOKIE];
  if (raw === undefined) return null;
  reply.clearCookie(COOKIE, { path: '/admin' });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return null;
  try {
    return JSON.parse(unsigned.value) as MailTestResult;
  } catch {
    return null;
  }
}
