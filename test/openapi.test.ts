import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { PROBLEMS } from '../src/errors.js';
import { startApp, type Answer, type TestApp } from './helpers/app.js';
import { createAccount, createForm, FORM_FIELDS, type Account } from './helpers/fixtures.js';

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
];

/** Every operation of the spec is built, and the additions: the document must describe each of them. */
const IMPLEMENTED = [...SPEC, ...ADDITIONS];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PROBLEM_STATUSES = ['400', '401', '403', '404', '429', '500'];

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
    app = await startApp();
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

  it('gives each operation a unique operationId and the bearer requirement naming its scope', () => {
    const ids = new Set<string>();
    for (const op of IMPLEMENTED) {
      const operation = doc.paths[op.path]?.[op.method];
      if (!operation) continue;
      const label = `${op.method.toUpperCase()} ${op.path}`;
      assert.match(String(operation.operationId), /^[A-Za-z][A-Za-z0-9]*$/, `${label} operationId`);
      assert.ok(!ids.has(operation.operationId), `${label}: operationId ${operation.operationId} is unique`);
      ids.add(operation.operationId);
      assert.ok(typeof operation.summary === 'string' && operation.summary.length > 0, `${label} summary`);
      const bearer = { bearerAuth: op.scope === 'any' ? [] : [op.scope] };
      assert.deepEqual(operation.security, op.signedLink ? [bearer, {}] : [bearer], `${label} security`);
      for (const scope of operation.security[0].bearerAuth) assert.ok(SPEC_SCOPES.includes(scope), `${label}: ${scope} is a scope of the spec`);
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

  it('lists the success response and the problem responses 400, 401, 403, 404, 429, 500', () => {
    for (const op of IMPLEMENTED) {
      const operation = doc.paths[op.path]?.[op.method];
      if (!operation) continue;
      const label = `${op.method.toUpperCase()} ${op.path}`;
      const success = operation.responses[String(op.success)];
      assert.ok(success, `${label} documents ${op.success}`);
      if (op.success === 204) assert.equal(success.content, undefined, `${label}: 204 has no content`);
      else if (op.signedLink) assert.ok(success.content?.['application/octet-stream']?.schema, `${label}: ${op.success} is a file`);
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

  it('describes the answers the service actually gives', async () => {
    const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
    ajv.addSchema({ $id: 'https://formgate.test/openapi.json', components: doc.components });
    const check = (method: string, template: string, got: Answer) => {
      const response = doc.paths[template][method].responses[String(got.status)];
      assert.ok(response, `${method.toUpperCase()} ${template} documents ${got.status}`);
      if (got.status === 204) {
        assert.equal(got.body, null);
        return;
      }
      const type = (got.headers.get('content-type') ?? '').split(';')[0]!;
      const schema = response.content?.[type]?.schema;
      assert.ok(schema, `${method.toUpperCase()} ${template} ${got.status} documents ${type}`);
      const rebased = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"https://formgate.test/openapi.json#/components/'));
      const validate = ajv.compile(rebased);
      assert.ok(validate(got.body), `${method.toUpperCase()} ${template} ${got.status}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(got.body)}`);
    };
    const token = account.token;
    const form = await createForm(app, account, { notificationEmails: ['a@example.com'], webhookUrl: 'https://example.com/hook' });
    check('get', '/me', await app.api('GET', '/me', { token }));
    check('get', '/me', await app.api('GET', '/me'));
    check('get', '/workspaces', await app.api('GET', '/workspaces?limit=1', { token }));
    check('get', '/workspaces', await app.api('GET', '/workspaces?limit=0', { token }));
    check('patch', '/workspaces/{workspaceId}', await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token, body: { name: 'Renamed' } }));
    check('patch', '/workspaces/{workspaceId}', await app.api('PATCH', '/workspaces/nope', { token, body: { name: 'Renamed' } }));
    check('post', '/workspaces', await app.api('POST', '/workspaces', { token, body: { name: 'Second' } }));
    check('get', '/forms', await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token }));
    check('post', '/forms', await app.api('POST', '/forms', { token, body: { workspaceId: account.workspaceId, name: 'Another', description: 'd' } }));
    check('post', '/forms', await app.api('POST', '/forms', { token, body: { workspaceId: account.workspaceId } }));
    check('get', '/forms/{formId}', await app.api('GET', `/forms/${form.id}`, { token }));
    check('patch', '/forms/{formId}', await app.api('PATCH', `/forms/${form.id}`, { token, body: { description: null, emailThreading: true } }));
    check('delete', '/forms/{formId}', await app.api('DELETE', `/forms/${form.id}`, { token }));
    check('get', '/forms/{formId}', await app.api('GET', `/forms/${form.id}`, { token }));
  });
});
