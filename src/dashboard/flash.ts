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

/** Says what a change did on the next page ("Token created"). */
export function setFlash(reply: FastifyReply, message: string): void {
  setOnceCookie(reply, FLASH_COOKIE, message.slice(0, 300), '/');
}

/** The message a change left for this page, if any; it is shown once. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): string | null {
  return takeOnceCookie(request, reply, FLASH_COOKIE, '/');
}
