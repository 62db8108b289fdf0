import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A web site on 127.0.0.1 that serves the pages a test sets: the site a form sits on. */
export interface PageSite {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Path (no query) → the page's HTML; any other path is 404. */
  pages: Map<string, string>;
  close(): Promise<void>;
}

export async function startPageSite(): Promise<PageSite> {
  const pages = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const page = pages.get((request.url ?? '').split('?')[0]!);
    response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pages,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
