import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';

// A reverse proxy keeps idle connections to its upstream for 60 s (nginx's keepalive_timeout, an
// AWS load balancer's idle timeout) and reuses them. If the server closes one first, a request the
// proxy sends on it at that moment fails (nginx answers a POST so failed with 502). So the server
// must keep an idle connection longer than the proxy does, and leave the closing to it.
describe(`kept-alive connections outlast a reverse proxy's (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  it('keeps an idle connection for longer than 60 s on both surfaces', () => {
    const timeouts = { api: app.surfaces.api.server.keepAliveTimeout, submit: app.surfaces.submit.server.keepAliveTimeout };
    assert.ok(timeouts.api > 60_000 && timeouts.submit > 60_000, JSON.stringify(timeouts));
    assert.equal(timeouts.submit, timeouts.api, 'one value for both');
  });

  // a client that reads `Keep-Alive: timeout=…` then knows to close an idle connection first
  it('says so in its answers', async () => {
    for (const url of [`${app.publicUrl}/healthz`, `${app.submitUrl}/healthz`]) {
      const answer = await fetch(url);
      await answer.arrayBuffer();
      // Node writes it from keepAliveTimeout; undici (fetch) hides `connection`, not `keep-alive`
      assert.equal(answer.headers.get('keep-alive'), 'timeout=72', url);
    }
  });
});
