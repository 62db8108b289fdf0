import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { postJson } from '../helpers/submit.js';

// Issue 42, item 3: the Pipedream source (integrations/pipedream-formgate), run against a real
// Formgate as Pipedream runs a source (its component API): props as `this`, its methods bound
// there, `$.service.db` a key-value store, `$.interface.http` an endpoint whose requests reach
// run(event) with `headers`, `body` and `bodyRaw` and are answered with what http.respond() set, and
// `$emit` collecting events, deduplicated by their meta id ("unique"). The endpoint is a real HTTP
// server on loopback.

const SOURCE = new URL('../../integrations/pipedream-formgate/sources/new-event/new-event.mjs', import.meta.url);

type Json = Record<string, any>;

describe(`the Pipedream source against a real Formgate (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let form: any;
  let other: any;
  let key: string;
  let component: any;
  let endpoint: { server: Server; url: string };
  let deployed: ReturnType<typeof deploy> | undefined;

  /** A deployed instance of the source: its props, db, emitted events, and the `this` Pipedream builds. */
  function deploy(props: Json) {
    const store = new Map<string, unknown>();
    const emitted: { body: Json; meta: Json }[] = [];
    const seen = new Set<string>();
    let response: { status: number; body?: unknown } | null = null;
    const self: Json = {
      ...props,
      db: { get: (k: string) => store.get(k), set: (k: string, v: unknown) => void store.set(k, v) },
      http: {
        endpoint: endpoint.url,
        respond: (r: { status: number; body?: unknown }) => {
          response = r;
        },
      },
      $emit: (body: Json, meta: Json) => {
        if (component.dedupe === 'unique' && seen.has(meta.id)) return;
        seen.add(meta.id);
        emitted.push({ body, meta });
      },
    };
    for (const [name, method] of Object.entries(component.methods as Record<string, (...args: any[]) => unknown>)) self[name] = method.bind(self);
    return {
      self,
      store,
      emitted,
      deploy: () => component.hooks.deploy.call(self),
      activate: () => component.hooks.activate.call(self),
      deactivate: () => component.hooks.deactivate.call(self),
      options: (prop: string) => component.props[prop].options.call(self),
      /** One request to the endpoint: run(event), then the answer it set. */
      async receive(event: Json): Promise<{ status: number; body?: unknown }> {
        response = null;
        await component.run.call(self, event);
        return response ?? { status: 200 };
      },
    };
  }

  before(async () => {
    app = await startApp({ allowPrivateWebhooks: '1' }, { delivery: true });
    owner = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact', customSpamWords: 'casino' });
    other = await createForm(app, owner, { name: 'Newsletter' });
    ({ secret: key } = await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'Pipedream'));
    component = (await import(SOURCE.href)).default;

    endpoint = { server: createServer(), url: '' };
    endpoint.server.on('request', (request, reply) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const bodyRaw = Buffer.concat(chunks).toString('utf8');
        const answer = await deployed!.receive({ method: request.method, path: request.url, headers: request.headers, body: JSON.parse(bodyRaw), bodyRaw });
        reply.writeHead(answer.status, { 'content-type': 'text/plain' }).end(String(answer.body ?? ''));
      });
    });
    await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
    endpoint.url = `http://127.0.0.1:${(endpoint.server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await app.close();
    endpoint.server.closeAllConnections();
    await new Promise((resolve) => endpoint.server.close(resolve));
  });

  it('is a source of the component API: key, version, type, the http interface with a custom response, a db, and a dropdown of forms', async () => {
    assert.equal(component.type, 'source');
    assert.match(component.key, /^formgate-/);
    assert.match(component.version, /^\d+\.\d+\.\d+$/);
    assert.deepEqual(component.props.http, { type: '$.interface.http', customResponse: true });
    assert.equal(component.props.db, '$.service.db');
    assert.equal(component.props.apiKey.secret, true);
    assert.deepEqual(
      component.props.event.options.map((o: Json) => o.value),
      ['submission.created', 'submission.spam', 'submission.deleted'],
    );
    const instance = deploy({ apiAddress: app.publicUrl, apiKey: key, event: 'submission.created', formId: '' });
    const options = await instance.options('formId');
    assert.deepEqual(
      options.map((o: Json) => o.label),
      [`Every form of ${(await app.api('GET', '/workspaces', { token: key })).body.data[0].name}`, 'Newsletter', 'Contact'],
    );
    assert.equal(options[0].value, `workspace:${owner.workspaceId}`);
  });

  it('activating subscribes its endpoint; each submission is emitted once as the Submission; a forged post is refused; deactivating unsubscribes', async () => {
    const early = await postJson(app, form.id, { name: 'Ada', message: 'before the source' });
    deployed = deploy({ apiAddress: `${app.baseUrl}/`, apiKey: key, event: 'submission.created', formId: form.id });
    await deployed.deploy();
    assert.deepEqual(
      deployed.emitted.map((e) => e.body.id),
      [early.body.id],
      'deploy emits the newest real submission',
    );
    await deployed.activate();
    assert.match(String(deployed.store.get('hookSecret')), /^whsec_/);
    const hooks = (await app.api('GET', '/hooks', { token: owner.token })).body.data;
    assert.deepEqual(
      hooks.map((h: Json) => [h.id, h.targetUrl, h.event, h.formId]),
      [[deployed.store.get('hookId'), endpoint.url, 'submission.created', form.id]],
    );

    const sent = await postJson(app, form.id, { name: 'Grace', message: 'Hello' });
    await postJson(app, other.id, { message: 'not this form' });
    await until('the emitted event', () => deployed!.emitted.length === 2);
    const [, { body, meta }] = deployed.emitted as [unknown, { body: Json; meta: Json }];
    assert.deepEqual(body, { id: sent.body.id, formId: form.id, data: { name: 'Grace', message: 'Hello' }, createdAt: body.createdAt });
    assert.equal(meta.id, `submission.created:${sent.body.id}`);
    assert.equal(meta.ts, Date.parse(body.createdAt));

    const forged = JSON.stringify({ id: 'forged', formId: form.id, data: {}, createdAt: new Date().toISOString() });
    const refused = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: forged });
    assert.equal(refused.status, 401);
    assert.match(await refused.text(), /header is missing/);
    const badSignature = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'webhook-id': 'x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: forged,
    });
    assert.equal(badSignature.status, 401);
    assert.equal(deployed.emitted.length, 2, 'nothing forged was emitted');

    await deployed.deactivate();
    assert.equal(deployed.store.get('hookId'), null);
    assert.deepEqual((await app.api('GET', '/hooks', { token: owner.token })).body.data, []);
    await deployed.deactivate();
  });

  it('a workspace’s spam and deletions; a subscription Formgate removed is no error to deactivate; a wrong key is a clear error', async () => {
    deployed = deploy({ apiAddress: app.baseUrl, apiKey: key, event: 'submission.spam', formId: `workspace:${owner.workspaceId}` });
    await deployed.activate();
    const spam = await postJson(app, other.id, { message: 'casino bonus' });
    await until('the spam event', () => deployed!.emitted.length === 1);
    assert.equal(deployed.emitted[0]!.body.id, spam.body.id);
    assert.equal((await app.api('DELETE', `/hooks/${deployed.store.get('hookId')}`, { token: owner.token })).status, 204);
    await deployed.deactivate();

    deployed = deploy({ apiAddress: app.baseUrl, apiKey: key, event: 'submission.deleted', formId: `workspace:${owner.workspaceId}` });
    await deployed.activate();
    const doomed = await postJson(app, form.id, { message: 'to be deleted' });
    assert.equal((await app.api('DELETE', `/submissions/${doomed.body.id}`, { token: key })).status, 204);
    await until('the deletion event', () => deployed!.emitted.length === 1);
    assert.deepEqual(Object.keys(deployed.emitted[0]!.body).sort(), ['deletedAt', 'formId', 'id']);
    await deployed.deactivate();

    const wrong = deploy({ apiAddress: app.baseUrl, apiKey: 'fgak_wrong', event: 'submission.created', formId: form.id });
    await assert.rejects(wrong.activate(), { status: 401, message: /Formgate answered 401 to POST \/hooks/ });
    await assert.rejects(
      deploy({ apiAddress: 'forms.example.com', apiKey: key, event: 'submission.created', formId: form.id }).activate(),
      /must start with http/,
    );
    assert.deepEqual((await app.api('GET', '/hooks', { token: owner.token })).body.data, [], 'nothing was left subscribed');
  });
});
