import type { IncomingMessage, ServerResponse } from 'node:http';
import { compressText } from '../web/text-compression.js';
import { PAGE_CONTENT_SECURITY_POLICY } from './pages.js';

/** `Accept: application/json` (or any `+json` type) asks for JSON instead of a redirect or a page. */
export function wantsJson(request: IncomingMessage): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') || accept.includes('+json');
}

/** A browser navigating (a plain HTML form) asks for HTML; everything else gets JSON problems. */
export function wantsHtml(request: IncomingMessage): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

export function sendJson(response: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

// The built-in pages load nothing from anywhere: styles are inline and there is no script.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** A built-in page, compressed when the browser takes br or gzip (the pages hold no secret to leak through their length). */
export function sendPage(response: ServerResponse, status: number, html: string): void {
  const { body, encoding } = compressText(html, response.req?.headers['accept-encoding']);
  const compression = encoding ? { 'content-encoding': encoding } : {};
  response.writeHead(status, { ...PAGE_HEADERS, ...compression, vary: 'Accept-Encoding', 'content-length': body.length });
  response.end(body);
}

export function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { location, 'content-length': 0 });
  response.end();
}
