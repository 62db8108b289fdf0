import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { inZone, zoneOf } from './time-zone.js';

/** Sends a page: server-rendered HTML (every value escaped by Preact), never cached; its times in the viewer's zone. */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`<!doctype html>${inZone(zoneOf(reply.request), () => renderToString(page))}`);
}

/** Post/redirect/get: a change answers 303 to the page that shows its result. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}
