import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { PROBLEMS } from '../src/errors.js';
import { startApp, type Answer, type TestApp } from './helpers/app.js';
import { createAccount, createForm, createToken, FORM_FIELDS, type Account } from './helpers/fixtures.js';
import { request } from './helpers/submit.js';

const { Spectral, Document: SpectralDocument } = spectralCore;

const SPEC_SCOPES = ['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'submissions:read', 'submissions:write'];

interface SpecOperation {
  method: string;
  /** Relative to `{base_url}`, path parameters in braces. */
  path: string;
  /** The scope of spec section 4; 'any' for any valid token. */
  scope: string;
  /** The query parameters of section 4, and whether each is required. */
  query: Record<string, boolean>;
  /** The success status. */
  success: number;
  /** Whether the operation has a JSON request body. */
  body: boolean;
  /** Also open without a token, to a signed link (its security lists an empty requirement too). */
  signedLink?: boolean;
}

const PAGE = { limit: false, startingAfter: false };

/** Every operation of spec section 4. */
const SPEC: SpecOperation[] = [
  { method: 'get', path: '/me', scope: 'any', query: {}, success: 200, body: false },
  { method: 'get', path: '/workspaces', scope: 'workspaces:read', query: PAGE, success: 200, body: false },
  { method: 'post', path: '/workspaces', scope: 'workspaces:write', query: {}, success: 201, body: true },
  { method: 'patch', path: '/workspaces/{workspaceId}', scope: 'workspaces:write', query: {}, success: 200, body: true },
  { method: 'get', path: '/forms', scope: 'forms:read', query: { workspaceId: true, ...PAGE }, success: 200, body: false },
  { method: 'post', path: '/forms', scope: 'forms:write', query: {}, success: 201, body: true },
  { method: 'get', path: '/forms/{formId}', scope: 'forms:read', query: {}, success: 200, body: false },
  { method: 'patch', path: '/forms/{formId}', scope: 'forms:write', query: {}, success: 200, body: true },
  { method: 'delete', path: '/forms/{formId}', scope: 'forms:write', query: {}, success: 204, body: false },
  { method: 'get', path: '/forms/{formId}/templates/{kind}', scope: 'forms:read', query: {}, success: 200, body: false },
  { method: 'put', path: '/forms/{formId}/templates/{kind}', scope: 'forms:write', query: {}, success: 200, body: true },
  { method: 'delete', path: '/forms/{formId}/templates/{kind}', scope: 'forms:write', query: {}, success: 204, body: false },
  { method: 'post', path: '/forms/{formId}/templates/{kind}/preview', scope: 'forms:read', query: {}, success: 200, body: true },
  { method: 'get', path: '/forms/{formId}/submissions', scope: 'submissions:read', query: { ...PAGE, search: false }, success: 200, body: false },
  { method: 'get', path: '/workspaces/{workspaceId}/submissions', scope: 'submissions:read', query: { ...PAGE, search: false }, success: 200, body: false },
  { method: 'delete', path: '/submissions/{submissionId}', scope: 'submissions:write', query: {}, success: 204, body: false },
];

/** Operations beyond the spec (docs/decisions.md, "Additions to the API"), held to the same conventions. */
const ADDITIONS: SpecOperation[] = [
  {
    method: 'get',
    path: '/forms/{formId}/submissions/export',
    scope: 'submissions:read',
    query: { format: true, search: false, from: false, to: false },
    success: 200,
    body: false,
  },
  { method: 'post', path: '/workspaces/{workspaceId}/erasure/preview', scope: 'submissions:write', query: {}, success: 200, body: true },
  { method: 'post', path: '/workspaces/{workspaceId}/erasure', scope: 'submissions:write', query: {}, success: 200, body: true },
  {
    method: 'get',
    path: '/files/{fileId}',
    scope: 'submissions:read',
    query: { expires: false, signature: false },
    success: 200,
    body: false,
    signedLink: true,
  },
  { method: 'get', path: '/forms/{formId}/spam', scope: 'submissions:read', query: PAGE, success: 200, body: false },
  { method: 'post', path: '/submissions/{submissionId}/spam', scope: 'submissions:write', query: {}, success: 200, body: false },
  { method: 'delete', path: '/submissions/{submissionId}/spam', scope: 'submissions:write', query: {}, success: 200, body: false },
  { method: 'get', path: '/submissions/{submissionId}/triage', scope: 'submissions:read', query: {}, success: 200, body: false },
  { method: 'patch', path: '/submissions/{submissionId}/triage', scope: 'submissions:write', query: {}, success: 200, body: true },
  {
    method: 'get',
    path: '/forms/{formId}/triage',
    scope: 'submissions:read',
    query: { ...PAGE, status: false, assigneeId: false, labelId: false },
    success: 200,
    body: false,
  },
  {
    method: 'get',
    path: '/workspaces/{workspaceId}/triage',
    scope: 'submissions:read',
    query: { ...PAGE, status: false, assigneeId: false, labelId: false },
    success: 200,
    body: false,
  },
  { method: 'post', path: '/hooks', scope: 'submissions:read', query: {}, success: 201, body: true },
  { method: 'get', path: '/hooks', scope: 'submissions:read', query: { ...PAGE, workspaceId: false }, success: 200, body: false },
  { method: 'delete', path: '/hooks/{hookId}', scope: 'submissions:read', query: {}, success: 204, body: false },
  { method: 'get', path: '/hooks/samples/{event}', scope: 'submissions:read', query: { formId: false, workspaceId: false }, success: 200, body: false },
  {
    method: 'get',
    path: '/workspaces/{workspaceId}/audit-events',
    scope: 'workspaces:read',
    query: { ...PAGE, group: false, actor: false, from: false, to: false },
    success: 200,
    body: false,
  },
];

/** Every operation of the spec is built, and the additions: the document must describe each of them. */
const IMPLEMENTED = [...SPEC, ...ADDITIONS];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The spec's (section 7), and those answered before any route runs, which can come back from any request. */
const PROBLEM_STATUSES = ['400', '401', '403', '404', '405', '408', '413', '414', '429', '431', '500', '503'];
/** The headers the service sends that a document must declare where they come back. */
const SENT_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'location',
  'www-authenticate',
  'allow',
  'content-disposition',
];

type Doc = Record<string, any>;

/** The operations a document describes, as `METHOD path`. */
function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => HTTP_METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

describe('OpenAPI document', () => {
  let app: TestApp;
  let account: Account;
  let answer: Answer;
  let doc: Doc;
  before(async () => {
    // the API's per-address limit on, so that its headers are on the answers; searches limited to 2 a minute
    app = await startApp({ rateLimitApi: '1000/1m', rateLimitSearch: '2/1m' });
    account = await createAccount(app);
    answer = await app.fetch('GET', `${app.baseUrl}/openapi.json`);
    doc = answer.body;
  });
  after(() => app.close());

  it('is served at {base_url}/openapi.json without a token, as JSON', () => {
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(typeof doc, 'object');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
    assert.match(String(doc.openapi), /^3\.1\.\d+$/);
  });

  it('names {base_url} as its server', () => {
    assert.ok(Array.isArray(doc.servers) && doc.servers.length > 0, 'servers is a non-empty list');
    assert.equal(doc.servers[0].url, app.baseUrl);
  });

  it('has the shared component schemas and the bearer scheme', () => {
    for (const name of ['Problem', 'Form', 'Workspace', 'Token', 'Submission', 'Template']) {
      assert.equal(doc.components?.schemas?.[name]?.type, 'object', `components.schemas.${name}`);
    }
    assert.deepEqual(doc.components.schemas.Problem.required.sort(), ['code', 'detail', 'status', 'title', 'type']);
    assert.deepEqual([...doc.components.schemas.Problem.properties.code.enum].sort(), Object.keys(PROBLEMS).sort());
    assert.deepEqual(Object.keys(doc.components.schemas.Token.properties).sort(), ['createdAt', 'expiresAt', 'lastUsedAt', 'name', 'scopes']);
    assert.deepEqual(Object.keys(doc.components.schemas.Workspace.properties).sort(), ['createdAt', 'id', 'name', 'plan', 'submissionsQuota', 'updatedAt']);
    assert.deepEqual(Object.keys(doc.components.schemas.Form.properties).sort(), FORM_FIELDS);
    assert.deepEqual(Object.keys(doc.components.schemas.Template.properties).sort(), ['code', 'kind', 'mode', 'paused', 'updatedAt']);
    assert.equal(doc.components.securitySchemes?.bearerAuth?.type, 'http');
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
  });

  it('describes every operation built, and nothing that is not an API operation of the spec or a documented addition', () => {
    const described = operationsOf(doc);
    for (const op of IMPLEMENTED) assert.ok(described.includes(`${op.method.toUpperCase()} ${op.path}`), `${op.method.toUpperCase()} ${op.path} is described`);
    const known = IMPLEMENTED.map((op) => `${op.method.toUpperCase()} ${op.path}`);
    for (const op of described) assert.ok(known.includes(op), `${op} is an operation of the spec`);
    for (const path of Object.keys(doc.paths)) {
      assert.ok(!/healthz|docs|openapi|^\/public\//.test(path), `${path} is not an API operation`);
    }
    assert.equal(new Set(described).size, described.length);
  });

  it('gives each operation a unique operationId, the bearer requirement, and its scope (x-required-scope, and said in its description)', () => {
    const ids = new Set<string>();
    for (const op of IMPLEMENTED) {
      const operation = doc.paths[op.path]?.[op.method];
      if (!operation) continue;
      const label = `${op.method.toUpperCase()} ${op.path}`;
      assert.match(String(operation.operationId), /^[A-Za-z][A-Za-z0-9]*$/, `${label} operationId`);
      assert.ok(!ids.has(operation.operationId), `${label}: operationId ${operation.operationId} is unique`);
      ids.add(operation.operationId);
      assert.ok(typeof operation.summary === 'string' && operation.summary.length > 0, `${label} summary`);
      // no roles in the requirement: an http scheme's are known to no linter or generator (docs/decisions.md, issue 39)
      const bearer = { bearerAuth: [] };
      assert.deepEqual(operation.security, op.signedLink ? [bearer, {}] : [bearer], `${label} security`);
      assert.equal(operation['x-required-scope'], op.scope, `${label} x-required-scope`);
      if (op.scope !== 'any') {
        assert.ok(SPEC_SCOPES.includes(op.scope), `${label}: ${op.scope} is a scope of the spec`);
        assert.ok(String(operation.description).includes(`\`${op.scope}\` scope`), `${label}: its description names its scope`);
      }
    }
    assert.ok(ids.size >= IMPLEMENTED.length);
  });

  it('describes each operation’s path and query parameters', () => {
    for (const op of IMPLEMENTED) {
      const operation = doc.paths[op.path]?.[op.method];
      if (!operation) continue;
      const label = `${op.method.toUpperCase()} ${op.path}`;
      const parameters: any[] = operation.parameters ?? [];
      const pathNames = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const inPath = parameters.filter((p) => p.in === 'path');
      assert.deepEqual(inPath.map((p) => p.name).sort(), [...pathNames].sort(), `${label} path parameters`);
      for (const p of inPath) {
        assert.equal(p.required, true, `${label} path ${p.name} is required`);
        assert.equal(p.schema?.type, 'string', `${label} path ${p.name} is a string`);
        if (p.name !== 'kind') assert.equal(p.schema?.minLength, 1, `${label} path ${p.name} has min length 1`);
      }
      const inQuery = parameters.filter((p) => p.in === 'query');
      assert.deepEqual(inQuery.map((p) => p.name).sort(), Object.keys(op.query).sort(), `${label} query parameters`);
      for (const p of inQuery) {
        assert.equal(Boolean(p.required), op.query[p.name], `${label} query ${p.name} is ${op.query[p.name] ? '' : 'not '}required`);
        if (p.name === 'limit') {
          assert.deepEqual(
            { type: p.schema.type, minimum: p.schema.minimum, maximum: p.schema.maximum, default: p.schema.default },
            { type: 'integer', minimum: 1, maximum: 100, default: 25 },
            `${label} limit`,
          );
        } else {
          assert.equal(p.schema?.type, 'string', `${label} query ${p.name} is a string`);
          assert.equal(p.schema?.minLength, 1, `${label} query ${p.name} has min length 1`);
        }
      }
      assert.equal(parameters.length, inPath.length + inQuery.length, `${label}: no header or cookie parameters`);
      if (op.body) {
        assert.ok(operation.requestBody?.content?.['application/json']?.schema, `${label} has a JSON request body`);
      } else {
        assert.equal(operation.requestBody, undefined, `${label} has no request body`);
      }
    }
  });

  it('lists the success response, its headers, and the problem responses of section 7 and of the answers before any route', () => {
    for (const op of IMPLEMENTED) {
      const operation = doc.paths[op.path]?.[op.method];
      if (!operation) continue;
      const label = `${op.method.toUpperCase()} ${op.path}`;
      const success = operation.responses[String(op.success)];
      assert.ok(success, `${label} documents ${op.success}`);
      assert.notEqual(success.description, 'Default Response', `${label}: ${op.success} says what it is`);
      assert.ok(success.headers?.['X-Request-Id'], `${label}: ${op.success} declares X-Request-Id`);
      if (op.success === 201) assert.ok(success.headers?.Location, `${label}: 201 declares Location`);
      if (op.success === 204) assert.equal(success.content, undefined, `${label}: 204 has no content`);
      else if (op.signedLink) assert.deepEqual(Object.keys(success.content ?? {}), ['*/*'], `${label}: ${op.success} is a file of any type`);
      else assert.ok(success.content?.['application/json']?.schema, `${label}: ${op.success} is JSON`);
      for (const status of PROBLEM_STATUSES) {
        const response = operation.responses[status];
        assert.ok(response, `${label} documents ${status}`);
        assert.ok(typeof response.description === 'string' && response.description.length > 0);
        assert.deepEqual(Object.keys(response.content ?? {}), ['application/problem+json'], `${label} ${status} is a problem`);
        assert.deepEqual(response.content['application/problem+json'].schema, { $ref: '#/components/schemas/Problem' }, `${label} ${status} schema`);
      }
      for (const status of Object.keys(operation.responses)) {
        if (Number(status) >= 400) assert.ok(operation.responses[status].content?.['application/problem+json'], `${label} ${status} is a problem`);
      }
    }
    const ref = (method: string, path: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
    assert.deepEqual(ref('get', '/me', '200'), { $ref: '#/components/schemas/Token' });
    assert.deepEqual(ref('post', '/workspaces', '201'), { $ref: '#/components/schemas/Workspace' });
    assert.deepEqual(ref('patch', '/workspaces/{workspaceId}', '200'), { $ref: '#/components/schemas/Workspace' });
    assert.deepEqual(ref('get', '/workspaces', '200').properties.data.items, { $ref: '#/components/schemas/Workspace' });
    assert.deepEqual(ref('post', '/forms', '201'), { $ref: '#/components/schemas/Form' });
    assert.deepEqual(ref('get', '/forms/{formId}', '200'), { $ref: '#/components/schemas/Form' });
    assert.deepEqual(ref('patch', '/forms/{formId}', '200'), { $ref: '#/components/schemas/Form' });
    assert.deepEqual(ref('get', '/forms', '200').properties.data.items, { $ref: '#/components/schemas/Form' });
    for (const page of [ref('get', '/workspaces', '200'), ref('get', '/forms', '200')]) {
      assert.deepEqual([...page.required].sort(), ['data', 'hasMore', 'nextCursor']);
    }
    const exported = doc.paths['/forms/{formId}/submissions/export'].get.responses['200'].content;
    assert.deepEqual(Object.keys(exported).sort(), ['application/json', 'text/csv'], 'the export documents both of its types');
    assert.deepEqual(exported['application/json'].schema.items, { $ref: '#/components/schemas/Submission' });
    assert.equal(exported['text/csv'].schema.type, 'string');
    // the spam folder (an addition): the Submission extended, never changed
    assert.deepEqual(ref('get', '/forms/{formId}/spam', '200').properties.data.items, { $ref: '#/components/schemas/SpamSubmission' });
    assert.deepEqual(ref('post', '/submissions/{submissionId}/spam', '200'), { $ref: '#/components/schemas/SpamSubmission' });
    assert.deepEqual(ref('delete', '/submissions/{submissionId}/spam', '200'), { $ref: '#/components/schemas/ReturnedSubmission' });
    const submission = Object.keys(doc.components.schemas.Submission.properties);
    assert.deepEqual(submission.sort(), ['createdAt', 'data', 'formId', 'id']);
    assert.deepEqual(Object.keys(doc.components.schemas.SpamSubmission.properties).sort(), [...submission, 'spamReasons'].sort());
    assert.deepEqual(Object.keys(doc.components.schemas.ReturnedSubmission.properties).sort(), [...submission, 'deliveries', 'status'].sort());
  });

  it('matches the router: each described operation exists and asks for a token, other methods are 405', async () => {
    const byPath = new Map<string, string[]>();
    for (const op of operationsOf(doc)) {
      const [method, path] = op.split(' ') as [string, string];
      byPath.set(path, [...(byPath.get(path) ?? []), method]);
    }
    for (const [template, methods] of byPath) {
      const path = template.replace(/\{kind\}/g, 'notification').replace(/\{\w+\}/g, 'x');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const answer = await app.api(method, path, ['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {});
        if (methods.includes(method)) {
          assert.equal(answer.status, 401, `${method} ${template} exists and needs a token: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.code, 'invalid_token');
        } else {
          assert.equal(answer.status, 405, `${method} ${template} is not an operation: ${answer.status}`);
          const allow = (answer.headers.get('allow') ?? '')
            .split(',')
            .map((m) => m.trim())
            .filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS');
          assert.deepEqual(allow.sort(), [...methods].sort(), `${template}: Allow lists the described methods`);
        }
      }
    }
  });

  it('lints clean with Redocly’s recommended rules and Spectral’s oas ruleset', async () => {
    const source = JSON.stringify(doc);
    const config = await createConfig({ extends: ['recommended'] });
    const redocly = await lintFromString({ source, absoluteRef: `${app.baseUrl}/openapi.json`, config });
    assert.deepEqual(
      redocly.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
      'Redocly recommended',
    );
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
    const found = await spectral.run(new SpectralDocument(source, Parsers.Json, `${app.baseUrl}/openapi.json`));
    assert.deepEqual(
      found.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`),
      [],
      'Spectral oas',
    );
  });

  it('describes the answers the service actually gives, their headers included, and those answered before any route runs', async () => {
    const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
    ajv.addSchema({ $id: 'https://formgate.test/openapi.json', components: doc.components });
    const checkHeaders = (label: string, response: Doc, got: Answer) => {
      const declared = new Map(Object.entries((response.headers ?? {}) as Doc).map(([name, header]) => [name.toLowerCase(), header]));
      for (const name of SENT_HEADERS) {
        const value = got.headers.get(name);
        if (value === null) continue;
        const header = declared.get(name);
        assert.ok(header, `${label} declares the ${name} it sends`);
        const typed = header.schema.type === 'integer' ? Number(value) : value;
        assert.ok(ajv.validate(header.schema, typed), `${label}: ${name}: ${value} fits ${JSON.stringify(header.schema)}`);
      }
      // all but the answers of requests Node could not read (408, 431), written before any request id exists
      if (got.status !== 431) assert.ok(got.headers.get('x-request-id'), `${label} sends X-Request-Id`);
      if (got.status === 401) assert.match(got.headers.get('www-authenticate') ?? '', /^Bearer realm=/, `${label} sends WWW-Authenticate`);
      if (got.status === 429) assert.match(got.headers.get('retry-after') ?? '', /^\d+$/, `${label} sends Retry-After`);
      if (got.status === 405) assert.ok(got.headers.get('allow'), `${label} sends Allow`);
      if (got.status === 201) assert.equal(got.headers.get('location'), `${app.baseUrl}${label.split(' ')[1]}/${got.body.id}`, `${label} Location`);
    };
    const check = (method: string, template: string, got: Answer) => {
      const label = `${method.toUpperCase()} ${template} ${got.status}`;
      // a 405 answers a method the path has no operation for: the path's operations document it
      const operation = doc.paths[template][method] ?? (got.status === 405 ? Object.values(doc.paths[template])[0] : undefined);
      assert.ok(operation, `${label}: an operation of the path`);
      const response = (operation as Doc).responses[String(got.status)];
      assert.ok(response, `${label} is documented`);
      checkHeaders(label, response, got);
      if (got.status === 204) {
        assert.equal(got.body, null);
        return;
      }
      const type = (got.headers.get('content-type') ?? '').split(';')[0]!;
      const schema = response.content?.[type]?.schema;
      assert.ok(schema, `${label} documents ${type}`);
      const rebased = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"https://formgate.test/openapi.json#/components/'));
      const validate = ajv.compile(rebased);
      assert.ok(validate(got.body), `${label}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(got.body)}`);
    };
    const token = account.token;
    const form = await createForm(app, account, { notificationEmails: ['a@example.com'], webhookUrl: 'https://example.com/hook' });
    check('get', '/me', await app.api('GET', '/me', { token }));
    check('get', '/me', await app.api('GET', '/me'));
    check('get', '/me', await app.api('GET', '/me', { token: 'fg_not-a-token' }));
    check('get', '/workspaces', await app.api('GET', '/workspaces?limit=1', { token }));
    check('get', '/workspaces', await app.api('GET', '/workspaces?limit=0', { token }));
    check('patch', '/workspaces/{workspaceId}', await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token, body: { name: 'Renamed' } }));
    check('patch', '/workspaces/{workspaceId}', await app.api('PATCH', '/workspaces/nope', { token, body: { name: 'Renamed' } }));
    check('post', '/workspaces', await app.api('POST', '/workspaces', { token, body: { name: 'Second' } }));
    check('get', '/forms', await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token }));
    const created = await app.api('POST', '/forms', { token, body: { workspaceId: account.workspaceId, name: 'Another', description: 'd' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    check('post', '/forms', created);
    assert.equal((await app.fetch('GET', created.headers.get('location')!, { token })).body.id, created.body.id, 'Location answers the new form');
    check('post', '/forms', await app.api('POST', '/forms', { token, body: { workspaceId: account.workspaceId } }));
    const formsOnly = await createToken(app, account.userId, ['forms:read']);
    check('post', '/forms', await app.api('POST', '/forms', { token: formsOnly, body: { workspaceId: account.workspaceId, name: 'x' } }));
    check('get', '/forms/{formId}', await app.api('GET', `/forms/${form.id}`, { token }));
    check('patch', '/forms/{formId}', await app.api('PATCH', `/forms/${form.id}`, { token, body: { description: null, emailThreading: true } }));
    check('post', '/forms/{formId}/templates/{kind}/preview', await app.api('POST', `/forms/${form.id}/templates/notification/preview`, { token }));
    check('get', '/forms/{formId}/templates/{kind}', await app.api('GET', `/forms/${form.id}/templates/welcome`, { token }));
    check('get', '/forms/{formId}/submissions/export', await app.api('GET', `/forms/${form.id}/submissions/export?format=json`, { token }));
    // the search limit (2 a minute here) refuses the third search, and says so in its headers
    for (const search of ['a', 'b', 'c']) {
      check('get', '/forms/{formId}/submissions', await app.api('GET', `/forms/${form.id}/submissions?search=${search}`, { token }));
    }
    // answered before any route runs: another method, a path segment, a body and a head too large
    check('put', '/me', await app.api('PUT', '/me', { token, body: {} }));
    check('get', '/forms/{formId}', await app.api('GET', `/forms/${'f'.repeat(101)}`, { token }));
    const big = { workspaceId: account.workspaceId, name: 'Big', description: 'a'.repeat(2 * 1024 * 1024 + 1) };
    check('post', '/forms', await app.api('POST', '/forms', { token, body: big }));
    check('get', '/forms', await request('GET', `${app.baseUrl}/forms?x=${'q'.repeat(17 * 1024)}`, null, { authorization: `Bearer ${token}` }));
    const caught = await request('POST', `${app.submitUrl}/${form.id}`, JSON.stringify({ message: '<script>x()</script>' }), {
      'content-type': 'application/json',
      accept: 'application/json',
    });
    check('get', '/forms/{formId}/spam', await app.api('GET', `/forms/${form.id}/spam?limit=1`, { token }));
    check('delete', '/submissions/{submissionId}/spam', await app.api('DELETE', `/submissions/${caught.body.id}/spam`, { token }));
    check('delete', '/submissions/{submissionId}/spam', await app.api('DELETE', `/submissions/${caught.body.id}/spam`, { token }));
    check('post', '/submissions/{submissionId}/spam', await app.api('POST', `/submissions/${caught.body.id}/spam`, { token }));
    check('post', '/submissions/{submissionId}/spam', await app.api('POST', `/submissions/${caught.body.id}/spam`, { token }));
    check('get', '/forms/{formId}/spam', await app.api('GET', `/forms/${form.id}/spam`, { token }));
    check('delete', '/forms/{formId}', await app.api('DELETE', `/forms/${form.id}`, { token }));
    check('get', '/forms/{formId}', await app.api('GET', `/forms/${form.id}`, { token }));
  });
});
