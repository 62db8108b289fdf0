import type { FastifyReply, FastifyRequest } from 'fastify';

const FLASH_COOKIE = 'fg_flash';

/** Leaves `value` for the next page under `path`: a signed cookie that lives a minute and is read once. */
export function setOnceCookie(reply: FastifyReply, name: string, value: string, path: string): void {
  reply.setCookie(name, value, {
    path,
    httpOnly: true,
    sameSite: 'lax',
    signed: true,
    maxAge: 60,
    secure: reply.request.protocol === 'https',
  });
}

/** The value a change left with setOnceCookie, if any (and genuine); cleared as it is read. */
export function takeOnceCookie(request: FastifyRequest, reply: FastifyReply, name: string, path: string): string | null {
  const raw = request.cookies[name];
  if (raw === undefined) return null;
  reply.clearCookie(name, { path });
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid ? unsigned.value : null;
}

/** success: the change was made as asked; warning: it was not, or only in part (a paused autoresponder, a test not sent). */
export type FlashTone = 'success' | 'warning';

/** What a change says on the next page, and how it is shown. */
export interface Flash {
  message: string;
  tone: FlashTone;
}

// the cookie's value is the message, after this mark for a warning
const WARNING_MARK = '!';

/** Says what a change did on the next page ("Token created"); a warning when it did not do what was asked. */
export function setFlash(reply: FastifyReply, message: string, tone: FlashTone = 'success'): void {
  setOnceCookie(reply, FLASH_COOKIE, (tone === 'warning' ? WARNING_MARK : '') + message.slice(0, 300), '/');
}

/** The message a change left for this page, if any; it is shown once. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | null {
  const value = takeOnceCookie(request, reply, FLASH_COOKIE, '/');
  if (value === null) return null;
  return value.startsWith(WARNING_MARK) ? { message: value.slice(1), tone: 'warning' } : { message: value, tone: 'success' };
}

/** A success flash for a page rendered at once, not after a redirect (a secret shown once). */
export function successFlash(message: string): Flash {
  return { message, tone: 'success' };
}
