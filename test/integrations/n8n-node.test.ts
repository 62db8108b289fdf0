import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { postJson } from '../helpers/submit.js';

// Issue 42, item 3: the n8n community node package (integrations/n8n-nodes-formgate), run against
// a real Formgate. The nodes are loaded from their TypeScript sources and driven as n8n drives them:
// the trigger's webhookMethods (checkExists/create/delete) and webhook(), the action's execute() and
// the nodes' loadOptions, through a context that implements the IHookFunctions, IWebhookFunctions,
// IExecuteFunctions and ILoadOptionsFunctions methods they call (n8n-workflow's interfaces; the
// package type-checks against the published n8n-workflow with its own `npm run build`, and
// scripts/e2e-n8n.sh runs it inside a real n8n). HTTP goes as n8n's httpRequestWithAuthentication
// sends it: the credential's own `authenticate` header, `qs`, a JSON body, an error with `httpCode`
// for a status of 400 or more. n8n's webhook server is stood in for by a real HTTP server on
// loopback that hands each request to the trigger's webhook() and answers as n8n would.

const PACKAGE = new URL('../../integrations/n8n-nodes-formgate/', import.meta.url);

type Json = Record<string, any>;

/** Loads a source file of the package (CommonJS TypeScript, through tsx) and answers its export `name`. */
async function load(path: string, name: string): Promise<any> {
  const module: any = await import(new URL(path, PACKAGE).href);
  const found = module[name] ?? module.default?.[name];
  assert.ok(found, `${path} exports ${name}`);
  return found;
}

/** Evaluates one of n8n's `={{ … }}` expressions over `$credentials`, as n8n's expression engine would for these plain JavaScript ones. */
function expression(value: string, credentials: Json): string {
  if (!value.startsWith('=')) return value;
  return value.slice(1).replace(/\{\{(.+?)\}\}(?!\})/g, (_, code: string) => String(new Function('$credentials', `return (${code});`)(credentials)));
}

interface Call {
  method: string;
  url: string;
  qs?: Json;
  body?: unknown;
}

/** An error shaped as n8n's NodeApiError: `httpCode` the status as a string. */
class HttpError extends Error {
  constructor(
    readonly httpCode: string,
    readonly body: unknown,
  ) {
    super(`Formgate answered ${httpCode}: ${JSON.stringify(body)}`);
  }
}

describe(`the n8n nodes against a real Formgate (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let form: any;
  let other: any;
  let key: string;
  let credential: any;
  let Trigger: any;
  let Action: any;
  let n8n: { server: Server; url: string; requests: { status: number; headers: IncomingHttpHeaders; rawBody: string }[]; runs: Json[][] };
  const calls: Call[] = [];

  /** n8n's `helpers.httpRequestWithAuthentication`: the credential's authenticate headers, then the request. */
  async function httpRequestWithAuthentication(this: unknown, type: string, options: Json, credentials: Json) {
    assert.equal(type, 'formgateApi');
    const headers: Record<string, string> = { ...options.headers };
    for (const [name, value] of Object.entries(credential.authenticate.properties.headers as Record<string, string>)) {
      headers[name] = expression(value, credentials);
    }
    const url = new URL(options.url);
    for (const [name, value] of Object.entries((options.qs ?? {}) as Json)) if (value !== undefined) url.searchParams.set(name, String(value));
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    calls.push({ method: options.method, url: url.href, qs: options.qs, body: options.body });
    const response = await fetch(url, { method: options.method, headers, body });
    const text = await response.text();
    const parsed = text === '' ? undefined : JSON.parse(text);
    if (response.status >= 400) throw new HttpError(String(response.status), parsed);
    return parsed;
  }

  /** What every kind of context shares: credentials, static data, the request helpers. */
  function base(options: { credentials: Json; staticData?: Json }) {
    const staticData = options.staticData ?? {};
    const self: Json = {
      getCredentials: async (type: string) => {
        assert.equal(type, 'formgateApi');
        return options.credentials;
      },
      getWorkflowStaticData: (type: string) => {
        assert.equal(type, 'node');
        return staticData;
      },
      continueOnFail: () => false,
      helpers: {
        httpRequestWithAuthentication: (type: string, request: Json) => httpRequestWithAuthentication(type, request, options.credentials),
        returnJsonArray: (data: Json | Json[]) => (Array.isArray(data) ? data : [data]).map((json) => ({ json })),
      },
    };
    return self;
  }

  /** IHookFunctions (and ILoadOptionsFunctions): getNodeParameter(name, fallback). */
  function hookContext(parameters: Json, options: { credentials: Json; staticData: Json; webhookUrl?: string }) {
    return {
      ...base(options),
      getNodeParameter: (name: string, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
      getNodeWebhookUrl: (name: string) => (name === 'default' ? options.webhookUrl : undefined),
      getMode: () => 'trigger',
      getActivationMode: () => 'activate',
    };
  }

  /** IExecuteFunctions: getNodeParameter(name, itemIndex, fallback) over one parameter set per item. */
  function executeContext(perItem: Json[], options: { credentials: Json; continueOnFail?: boolean }) {
    return {
      ...base(options),
      getInputData: () => perItem.map(() => ({ json: {} })),
      getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
        const parameters = perItem[itemIndex]!;
        if (name in parameters) return parameters[name];
        if (fallback === undefined) throw new Error(`no parameter ${name}`);
        return fallback;
      },
      continueOnFail: () => options.continueOnFail ?? false,
    };
  }

  const keyCredentials = () => ({ baseUrl: app.baseUrl, apiKey: key });

  /** The trigger as an active workflow holds it: its parameters, static data and webhook URL. */
  function activeTrigger(parameters: Json) {
    const staticData: Json = {};
    const trigger = new Trigger();
    const hooks = () => hookContext(parameters, { credentials: keyCredentials(), staticData, webhookUrl: n8n.url });
    return {
      staticData,
      checkExists: () => trigger.webhookMethods.default.checkExists.call(hooks()),
      create: () => trigger.webhookMethods.default.create.call(hooks()),
      remove: () => trigger.webhookMethods.default.delete.call(hooks()),
      /** n8n's webhook server hands the request to this one. */
      webhook: (request: { headers: IncomingHttpHeaders; rawBody: string; respond: (status: number, text: string) => void }) =>
        trigger.webhook.call({
          ...base({ credentials: keyCredentials(), staticData }),
          getNodeParameter: (name: string, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
          getBodyData: () => JSON.parse(request.rawBody),
          getHeaderData: () => request.headers,
          getRequestObject: () => ({ rawBody: Buffer.from(request.rawBody) }),
          getResponseObject: () => {
            let status = 200;
            const response = {
              status(code: number) {
                status = code;
                return response;
              },
              send(text: string) {
                request.respond(status, text);
                return response;
              },
              end: () => response,
            };
            return response;
          },
          getMode: () => 'webhook',
        }),
    };
  }

  let active: ReturnType<typeof activeTrigger> | undefined;

  before(async () => {
    app = await startApp({ allowPrivateWebhooks: '1' }, { delivery: true });
    owner = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact', customSpamWords: 'casino' });
    other = await createForm(app, owner, { name: 'Newsletter' });
    ({ secret: key } = await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'n8n'));
    const Credential = await load('credentials/FormgateApi.credentials.ts', 'FormgateApi');
    credential = new Credential();
    Trigger = await load('nodes/Formgate/FormgateTrigger.node.ts', 'FormgateTrigger');
    Action = await load('nodes/Formgate/Formgate.node.ts', 'Formgate');

    // n8n's webhook server: each POST goes to the active trigger's webhook(), as n8n routes it
    n8n = { server: createServer(), url: '', requests: [], runs: [] };
    n8n.server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let answered = false;
        const respond = (status: number, text: string) => {
          answered = true;
          n8n.requests.push({ status, headers: request.headers, rawBody });
          response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
        };
        try {
          const result = await active!.webhook({ headers: request.headers, rawBody, respond });
          if (result.noWebhookResponse) return void assert.ok(answered, 'a trigger that says it answered has answered');
          n8n.runs.push(result.workflowData[0].map((item: Json) => item.json));
          respond(200, 'Workflow was started');
        } catch (error) {
          respond(500, String(error));
        }
      });
    });
    await new Promise<void>((resolve) => n8n.server.listen(0, '127.0.0.1', resolve));
    n8n.url = `http://127.0.0.1:${(n8n.server.address() as AddressInfo).port}/webhook/4f1c-formgate/webhook`;
  });
  after(async () => {
    await app.close();
    n8n.server.closeAllConnections();
    await new Promise((resolve) => n8n.server.close(resolve));
  });

  it('is an n8n community package: its package.json lists the credential and both nodes, built from these sources, with their icon', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8'));
    assert.equal(pkg.name, 'n8n-nodes-formgate');
    assert.ok(pkg.keywords.includes('n8n-community-node-package'));
    assert.equal(pkg.n8n.n8nNodesApiVersion, 1);
    assert.equal(pkg.type, undefined, 'n8n requires the built files as CommonJS');
    for (const built of [...pkg.n8n.credentials, ...pkg.n8n.nodes]) {
      assert.match(built, /^dist\/.+\.js$/);
      assert.ok(existsSync(new URL(built.replace(/^dist\//, '').replace(/\.js$/, '.ts'), PACKAGE)), `${built} is built from a source file`);
    }
    assert.match(pkg.devDependencies['n8n-workflow'], /^\d+\.\d+\.\d+$/, 'the n8n-workflow it is checked against is pinned');
    assert.ok(pkg.peerDependencies['n8n-workflow']);
    // icons are referenced relative to the built file, and copied beside dist/icons by the build
    const trigger = new Trigger().description;
    const action = new Action().description;
    for (const [from, icon] of [
      ['nodes/Formgate/', trigger.icon],
      ['nodes/Formgate/', action.icon],
      ['credentials/', credential.icon],
    ]) {
      assert.ok(existsSync(new URL(String(icon).replace(/^file:/, ''), new URL(from, PACKAGE))), `${icon} exists`);
    }
    assert.equal(trigger.name, 'formgateTrigger');
    assert.deepEqual(trigger.group, ['trigger']);
    assert.deepEqual(trigger.inputs, []);
    assert.deepEqual(trigger.webhooks, [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }]);
    assert.equal(action.name, 'formgate');
    for (const node of [trigger, action]) {
      assert.deepEqual(
        node.credentials.map((c: Json) => c.name),
        [credential.name],
      );
      for (const property of node.properties) {
        const method = property.typeOptions?.loadOptionsMethod;
        if (method) assert.ok(new (node === trigger ? Trigger : Action)().methods.loadOptions[method], `loadOptions.${method} exists`);
      }
    }
  });

  it('tests its credential with GET /me, with a key or a token, from the API address or the installation’s, and refuses a wrong secret', async () => {
    const test = async (credentials: Json) => {
      const { request } = credential.test;
      const url = `${expression(request.baseURL, credentials)}${request.url}`;
      return httpRequestWithAuthentication('formgateApi', { method: request.method, url }, credentials);
    };
    assert.equal((await test(keyCredentials())).name, 'n8n');
    assert.equal((await test({ baseUrl: `${app.publicUrl}/`, apiKey: key })).name, 'n8n', 'the installation’s address is completed with /public/v1');
    assert.equal((await test({ baseUrl: `${app.baseUrl}/`, apiKey: owner.token })).scopes.includes('forms:write'), true, 'an API token works too');
    await assert.rejects(test({ baseUrl: app.baseUrl, apiKey: 'fgak_wrong' }), { httpCode: '401' });
  });

  it('offers the forms, and every form of the workspace, in its dropdowns', async () => {
    const options = await new Trigger().methods.loadOptions.getForms.call(hookContext({}, { credentials: keyCredentials(), staticData: {} }));
    const names = options.map((o: Json) => o.name);
    assert.ok(names.includes('Contact') && names.includes('Newsletter'), names.join(', '));
    assert.ok(options.some((o: Json) => o.value === `workspace:${owner.workspaceId}` && o.name.startsWith('Every form of')));
    assert.equal(options.find((o: Json) => o.name === 'Contact').value, form.id);
    const forms = await new Action().methods.loadOptions.getForms.call(hookContext({}, { credentials: keyCredentials(), staticData: {} }));
    assert.ok(forms.every((o: Json) => !String(o.value).startsWith('workspace:')));
    const workspaces = await new Action().methods.loadOptions.getWorkspaces.call(hookContext({}, { credentials: keyCredentials(), staticData: {} }));
    assert.deepEqual(
      workspaces.map((o: Json) => o.value),
      [owner.workspaceId],
    );
  });

  it('trigger: activating subscribes its webhook URL, each submission starts the workflow with the Submission, a forged post is refused, deactivating unsubscribes', async () => {
    active = activeTrigger({ event: 'submission.created', formId: form.id, verifySignature: true });
    assert.equal(await active.checkExists(), false, 'nothing to find before the first activation');
    assert.equal(await active.create(), true);
    assert.match(active.staticData.hookId, /.+/);
    assert.match(active.staticData.hookSecret, /^whsec_/);
    const listed = await app.api('GET', '/hooks', { token: owner.token });
    assert.deepEqual(
      listed.body.data.map((h: Json) => [h.id, h.targetUrl, h.event, h.formId]),
      [[active.staticData.hookId, n8n.url, 'submission.created', form.id]],
    );
    assert.equal(await active.checkExists(), true, 'n8n finds it on the next start and does not subscribe again');

    const sent = await postJson(app, form.id, { name: 'Ada', email: 'ada@example.com', message: 'Hello' });
    await postJson(app, other.id, { message: 'another form: not for this trigger' });
    await until('the workflow started by the submission', () => n8n.runs.length === 1);
    assert.deepEqual(n8n.runs[0], [
      { id: sent.body.id, formId: form.id, data: { name: 'Ada', email: 'ada@example.com', message: 'Hello' }, createdAt: n8n.runs[0]![0]!.createdAt },
    ]);

    // someone who learnt the URL cannot start the workflow: no signature, or one of another secret
    const forged = JSON.stringify({ id: 'forged', formId: form.id, data: {}, createdAt: new Date().toISOString() });
    const post = (headers: Record<string, string>) =>
      fetch(n8n.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: forged });
    assert.equal((await post({})).status, 401);
    const real = n8n.requests.find((r) => r.status === 200)!;
    const replayedHeaders = { 'webhook-id': String(real.headers['webhook-id']), 'webhook-timestamp': String(real.headers['webhook-timestamp']) };
    assert.equal(
      (await post({ ...replayedHeaders, 'webhook-signature': String(real.headers['webhook-signature']) })).status,
      401,
      'a signature of another body',
    );
    assert.equal(n8n.runs.length, 1, 'no workflow was started by them');

    assert.equal(await active.remove(), true);
    assert.equal(active.staticData.hookId, undefined);
    assert.equal((await app.api('GET', '/hooks', { token: owner.token })).body.data.length, 0, 'deactivating unsubscribed');
    assert.equal(await active.checkExists(), false);
    assert.equal(await active.remove(), true, 'removing again is harmless');
  });

  it('trigger: a subscription removed in Formgate is made anew; a changed event replaces the old one; a workspace’s deletions arrive as ids', async () => {
    active = activeTrigger({ event: 'submission.spam', formId: form.id });
    await active.create();
    const first = active.staticData.hookId;
    assert.equal((await app.api('DELETE', `/hooks/${first}`, { token: owner.token })).status, 204, 'removed from Formgate’s side');
    assert.equal(await active.checkExists(), false, 'n8n is told to subscribe again');
    assert.equal(active.staticData.hookId, undefined);
    await active.create();
    const spam = await postJson(app, form.id, { message: 'cheap casino chips' });
    await until('the spam event', () => n8n.runs.length === 2);
    assert.equal(n8n.runs[1]![0]!.id, spam.body.id);

    const parameters: Json = { event: 'submission.spam', formId: `workspace:${owner.workspaceId}` };
    const changed = activeTrigger(parameters);
    Object.assign(changed.staticData, active.staticData);
    parameters.event = 'submission.deleted';
    assert.equal(await changed.checkExists(), false, 'the stored subscription is for another event');
    assert.deepEqual((await app.api('GET', '/hooks', { token: owner.token })).body.data, [], 'and it was removed');
    await changed.create();
    active = changed;
    const hooks = (await app.api('GET', '/hooks', { token: owner.token })).body.data;
    assert.deepEqual(
      hooks.map((h: Json) => [h.event, h.formId, h.workspaceId]),
      [['submission.deleted', null, owner.workspaceId]],
    );

    const doomed = await postJson(app, other.id, { message: 'to be deleted' });
    const [deleted] = await new Action().execute.call(
      executeContext([{ resource: 'submission', operation: 'delete', submissionId: doomed.body.id }], { credentials: keyCredentials() }),
    );
    assert.deepEqual(deleted, [{ json: { id: doomed.body.id, deleted: true }, pairedItem: { item: 0 } }]);
    await until('the deletion event', () => n8n.runs.length === 3);
    assert.deepEqual(Object.keys(n8n.runs[2]![0]!).sort(), ['deletedAt', 'formId', 'id']);
    assert.equal(n8n.runs[2]![0]!.id, doomed.body.id);
    assert.equal(n8n.runs[2]![0]!.formId, other.id);
    await active.remove();
  });

  it('action: lists a form’s submissions newest first, every one or up to a limit, following the cursor; samples; forms; a failure is an error or an item', async () => {
    const many = await createForm(app, owner, { name: 'Busy' });
    const ids: string[] = [];
    for (let i = 0; i < 103; i++) ids.push((await postJson(app, many.id, { message: `message ${i}` })).body.id);
    const run = (parameters: Json[], continueOnFail = false) =>
      new Action().execute.call(executeContext(parameters, { credentials: keyCredentials(), continueOnFail }));

    calls.length = 0;
    const [all] = await run([{ resource: 'submission', operation: 'getAll', formId: many.id, returnAll: true }]);
    assert.deepEqual(
      all.map((item: Json) => item.json.id),
      [...ids].reverse(),
      'every submission once, newest first',
    );
    assert.ok(all.every((item: Json) => item.pairedItem.item === 0));
    assert.equal(calls.length, 2, 'two pages of at most 100');
    assert.equal(calls[1]!.qs!.startingAfter !== undefined, true, 'the second asked for what follows the first');

    calls.length = 0;
    const [some] = await run([{ resource: 'submission', operation: 'getAll', formId: many.id, returnAll: false, limit: 101 }]);
    assert.deepEqual(
      some.map((item: Json) => item.json.id),
      [...ids].reverse().slice(0, 101),
    );
    assert.deepEqual(
      calls.map((c) => c.qs!.limit),
      [100, 1],
    );
    const [searched] = await run([{ resource: 'submission', operation: 'getAll', formId: many.id, returnAll: true, search: 'message 42' }]);
    assert.deepEqual(
      searched.map((item: Json) => item.json.data.message),
      ['message 42'],
    );

    const [sample] = await run([{ resource: 'submission', operation: 'getSample', formId: many.id, event: 'submission.created' }]);
    assert.equal(sample.length, 1);
    assert.deepEqual(sample[0].json, all[0].json, 'the sample is the newest submission, as the trigger would receive it');

    const [forms] = await run([{ resource: 'form', operation: 'getAll', workspaceId: owner.workspaceId, returnAll: true }]);
    assert.deepEqual(forms.map((item: Json) => item.json.name).sort(), ['Busy', 'Contact', 'Newsletter']);
    const [oneForm] = await run([{ resource: 'form', operation: 'getAll', workspaceId: owner.workspaceId, returnAll: false, limit: 1 }]);
    assert.equal(oneForm.length, 1);

    // one item per input item; a failure stops the run, or with "continue on fail" becomes an item
    const gone = ids[0]!;
    const twice = [
      { resource: 'submission', operation: 'delete', submissionId: gone },
      { resource: 'submission', operation: 'delete', submissionId: gone },
    ];
    await assert.rejects(run(twice), { httpCode: '404' });
    const [outcome] = await run(twice, true);
    assert.equal(outcome.length, 2);
    assert.match(outcome[0].json.error, /404/, 'already deleted by the run before');
    assert.equal(outcome[1].pairedItem.item, 1);
    const left = await app.api('GET', `/forms/${many.id}/submissions?limit=100`, { token: owner.token });
    assert.ok(!left.body.data.some((s: Json) => s.id === gone));
  });
});
