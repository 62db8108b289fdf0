import type { FastifyInstance } from 'fastify';
import { PROBLEMS, problemAnchor } from '../../errors.js';

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const code = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** `GET /docs/errors`: the page every problem's `type` points into, one anchor per code. */
export function registerErrorDocsRoute(app: FastifyInstance): void {
  const sections = Object.entries(PROBLEMS)
    .map(
      ([name, p]) =>
        `<section id="${problemAnchor(name)}"><h2><code>${name}</code> <small>HTTP ${p.status} · ${escapeHtml(p.title)}</small></h2><p>${code(p.summary)}</p></section>`,
    )
    .join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="description" content="Every problem code of the Formgate API, with its HTTP status and what it means."><title>Formgate API errors</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328}small{color:#59636e;font-weight:normal}code{background:#f6f8fa;padding:0 .2em;border-radius:4px}section{border-top:1px solid #d1d9e0;padding-top:.5rem}</style></head>
<body><h1>Formgate API errors</h1><p>Every error is an RFC 9457 problem (<code>application/problem+json</code>). Branch on <code>code</code>; <code>detail</code> is for people and may change.</p>
${sections}</body></html>`;
  app.get('/docs/errors', { config: { rateLimit: false } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
}
