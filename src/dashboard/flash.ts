import type { FastifyReply, FastifyRequest } from 'fastify';

const FLASH_COOKIE = 'fg_flash';

/** Says what a change did on the next page ("Token created"): a signed cookie read once. */
export function setFlash(reply: FastifyReply, message: string): void {
  reply.setCookie(FLASH_COOKIE, message.slice(0, 300), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    signed: true,
    maxAge: 60,
    secure: reply.request.protocol === 'https',
  });
}

/** The message a change left for this page, if any; it is shown once. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): string | null {
  const raw = request.cookies[FLASH_COOKIE];
  if (raw === undefined) return null;
  reply.clearCookie(FLASH_COOKIE, { path: '/' });
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid ? unsigned.value : null;
}
