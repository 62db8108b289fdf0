import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TestEmailOutcome } from '../services/mail-check.js';
import { setOnceCookie, takeOnceCookie } from './flash.js';

const COOKIE = 'fg_mail_test';

/** What the admin page's mail section shows after a test: its outcome, or that the hourly limit refused it. */
export type MailTestResult = TestEmailOutcome | { refused: number };

/**
 * The flash of the SMTP test: shown in the mail section rather than at the top of the page, and as a
 * success or a failure. Read once, like flash.ts's; long texts are cut to fit a cookie.
 */
export function setMailTestResult(reply: FastifyReply, result: MailTestResult): void {
  const cut = Object.fromEntries(Object.entries(result).map(([key, value]) => [key, typeof value === 'string' ? value.slice(0, 600) : value]));
  setOnceCookie(reply, COOKIE, JSON.stringify(cut), '/admin');
}

/** The result a test left for this page, if any; shown once. */
export function takeMailTestResult(request: FastifyRequest, reply: FastifyReply): MailTestResult | null {
  const value = takeOnceCookie(request, reply, COOKIE, '/admin');
  if (value === null) return null;
  try {
    return JSON.parse(value) as MailTestResult;
  } catch {
    return null;
  }
}
