import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { inZone, zoneOf } from './time-zone.js';

/**
 * Sends a page: server-rendered HTML (every value escaped by Preact), never cached; its times in the
 * viewer's zone; in br or gzip when the browser takes them, unless its route says `compress: false`
 * (a page that shows a secret: dashboard/plugin.ts, BREACH).
 */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  const html = `<!doctype html>${inZone(zoneOf(reply.request), () => renderToString(page))}`;
  reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store');
  return sendText(reply, html);
}

/** Text the browser reads (a page, a stylesheet, a script), compressed where the route allows it (plugin.ts). */
export function sendText(reply: FastifyReply, text: string | Buffer): FastifyReply {
  if (typeof reply.compress !== 'function') return reply.send(text);
  reply.compress(text);
  return reply;
}

/** Post/redirect/get: a change answers 303 to the page that shows its result. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}
