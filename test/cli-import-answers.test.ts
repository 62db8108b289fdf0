import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SourceApi } from '../src/cli/import-source.js';
import { runImport } from '../src/cli/import.js';
import { startApp, type TestApp } from './helpers/app.js';
import { cliEnv, killRunningCli, runCli } from './helpers/cli.js';

// Issue 38 item 13: each answer of the source is read as it streams and abandoned past a bound, with
// a message naming the page and the bound, and never asked again (a retry cannot make it shorter).
const quiet = { advance: () => undefined, finish: () => undefined };
const MB = 1024 * 1024;
const LIMIT = 4 * MB;
// what the stand-in offers at most for one oversized page: reading it whole is what must not happen
const OFFERED = 96 * MB;

describe('formgate import: the bound on each answer of the source', () => {
  let source: TestApp;
  let target: TestApp;
  let token: string;
  let proxy: Server;
  let proxyUrl: string;
  /** How a submissions page is answered: 'stream' (chunked, endless in effect) or 'declared' (a Content-Length past the bound). */
  let mode: 'stream' | 'declared' | 'error' = 'stream';
  const pageRequests: string[] = [];
  let written = 0;

  /** Writes `{"data":["xxx…` a megabyte at a time, waiting for the socket, until OFFERED bytes or the client hangs up. */
  async function streamHugePage(response: ServerResponse, status = 200): Promise<void> {
    response.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(MB, 'x');
    response.write('{"data":["');
    let closed = false;
    response.once('close', () => (closed = true));
    while (!closed && written < OFFERED) {
      written += chunk.length;
      if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
    }
    if (!closed) response.end('"],"hasMore":false,"nextCursor":null}');
  }

  before(async () => {
    [source, target] = await Promise.all([startApp(), startApp()]);
    const { user, workspace } = await source.ctx.users.createUser('source@example.com');
    await source.ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    await source.ctx.forms.createForm(user.id, workspace.id, { name: 'Contact' });
    ({ secret: token } = await source.ctx.tokens.createToken(user.id, { name: 'export', scopes: ['workspaces:read', 'forms:read', 'submissions:read'] }));
    await target.ctx.users.createUser('owner@example.com');
    // the real source behind a proxy that answers submission pages with more than the bound
    proxy = createServer(async (request, response) => {
      const path = request.url!.slice('/public/v1'.length);
      if (/^\/forms\/[^/]+\/submissions/.test(path)) {
        pageRequests.push(path);
        if (mode === 'declared') {
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * MB) });
          response.write('{"data":[');
          return; // the rest never comes: a client that waited for it would hit its deadline
        }
        await streamHugePage(response, mode === 'error' ? 404 : 200);
        return;
      }
      const answer = await fetch(`${source.baseUrl}${path}`, { headers: { authorization: request.headers.authorization! } });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/public/v1`;
  });
  after(async () => {
    killRunningCli();
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await target?.close();
    await source?.close();
  });

  const importThroughProxy = () =>
    runImport(
      target.ctx,
      new SourceApi({ baseUrl: proxyUrl, token, maxAnswerBytes: LIMIT, tries: 8, baseDelayMs: 1, timeoutMs: 20_000 }),
      { owner: 'owner@example.com' },
      quiet,
    );

  it('stops reading a streamed page past the bound, names the page and the bound, and does not ask again', async () => {
    pageRequests.length = 0;
    written = 0;
    mode = 'stream';
    const summary = await importThroughProxy();
    assert.match(
      summary.stopped ?? '',
      /^\/public\/v1\/forms\/[^/]+\/submissions\?limit=100 answered more than 4 MB, past the limit of 4 MB for one answer; it was not read further\./,
    );
    assert.match(summary.stopped!, /--max-answer-mb/);
    assert.equal(pageRequests.length, 1, 'asked once: a retry cannot make the answer shorter');
    assert.equal(summary.forms.created, 1, 'what came before the page is kept');
    // the stand-in stops writing once the client hangs up: far short of what it offered
    assert.ok(written < OFFERED / 2, `the page was abandoned early (${written / MB} MB written of ${OFFERED / MB} offered)`);
  });

  it('refuses an answer whose declared length is past the bound without reading it', async () => {
    pageRequests.length = 0;
    mode = 'declared';
    const summary = await importThroughProxy();
    assert.match(summary.stopped ?? '', /submissions\?limit=100 answered 10 MB \(Content-Length\), past the limit of 4 MB for one answer/);
    assert.equal(pageRequests.length, 1);
  });

  it('reads only the start of an error answer, however long', async () => {
    pageRequests.length = 0;
    written = 0;
    mode = 'error';
    const summary = await importThroughProxy();
    assert.equal(summary.stopped, undefined);
    assert.ok(
      summary.skipped.some((line) => /its submissions could not be listed \(404 on \/public\/v1\/forms\/.+\/submissions\)/.test(line)),
      JSON.stringify(summary.skipped),
    );
    assert.equal(pageRequests.length, 1);
    assert.ok(written < OFFERED / 2, `the error was abandoned early (${written / MB} MB written of ${OFFERED / MB} offered)`);
  });

  it('takes --max-answer-mb as a whole number of MB, and refuses anything else as a usage error', async () => {
    const config = target.ctx.config.database;
    const env = cliEnv({
      url: config.dialect === 'sqlite' ? `sqlite:${config.file}` : config.url,
      dataDir: target.ctx.config.dataDir,
      drop: async () => undefined,
    });
    const base = ['import', '--from', proxyUrl, '--token', token, '--owner', 'owner@example.com', '--json'];
    const refused = await runCli(env, [...base, '--max-answer-mb', '0']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(JSON.parse(refused.stdout).error.message, /--max-answer-mb: "0" must be a whole number of MB from 1 to 4096/);
    mode = 'stream';
    const stopped = await runCli(env, [...base, '--max-answer-mb', '2']);
    assert.equal(stopped.code, 1, stopped.stderr);
    assert.match(JSON.parse(stopped.stdout).stopped, /answered more than 2 MB, past the limit of 2 MB/);
  });
});
