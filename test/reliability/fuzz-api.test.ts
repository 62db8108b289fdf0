import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { API_PREFIX } from '../../src/config/config.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { diffDumps, dumpTables, type Dump } from '../helpers/dump.js';
import { createAccount, createForm, createToken, type Account } from '../helpers/fixtures.js';
import { printFigures } from '../helpers/figures.js';
import {
  assertProperty,
  deepJson,
  edgeNumber,
  FuzzCounts,
  fuzzSeed,
  invalidUtf8,
  nastyString,
  objectWith,
  problemDefect,
  PROTOTYPE_KEYS,
  wrongValue,
} from '../helpers/fuzz.js';
import { sendRaw, type RawRequest } from '../helpers/raw-http.js';
import { placesIn, updateAt, validValue, type JsonSchema } from '../helpers/schema-arbitrary.js';
import { postJson } from '../helpers/submit.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

/**
 * Every operation of the management API, as its own OpenAPI document lists them, fuzzed with
 * random and boundary requests through real HTTP: no answer is a 5xx, every refusal is a problem
 * document of the catalogue, and no refusal changes a stored row. A new operation is fuzzed
 * without editing this file, but the test fails until it says what the operation's own id
 * names (OPERATIONS) and how to pick its path parameters (PATH_PARAMETERS).
 */

const RUNS_PER_OPERATION = 70;
const RUNS_OF_ODD_REQUESTS = 250;

/** What an operation does to the resource its path names: a delete consumes it, so each run gets one of its own. */
interface OperationFuzz {
  consumes?: 'formId' | 'submissionId' | 'hookId';
}

const OPERATIONS: Record<string, OperationFuzz> = {
  'GET /me': {},
  'GET /workspaces': {},
  'POST /workspaces': {},
  'PATCH /workspaces/{workspaceId}': {},
  'GET /forms': {},
  'POST /forms': {},
  'GET /forms/{formId}': {},
  'PATCH /forms/{formId}': {},
  'DELETE /forms/{formId}': { consumes: 'formId' },
  'GET /forms/{formId}/submissions': {},
  'GET /workspaces/{workspaceId}/submissions': {},
  'GET /forms/{formId}/submissions/export': {},
  'GET /files/{fileId}': {},
  'DELETE /submissions/{submissionId}': { consumes: 'submissionId' },
  'GET /forms/{formId}/spam': {},
  'POST /submissions/{submissionId}/spam': {},
  'DELETE /submissions/{submissionId}/spam': {},
  'GET /submissions/{submissionId}/triage': {},
  'PATCH /submissions/{submissionId}/triage': {},
  'GET /forms/{formId}/triage': {},
  'GET /workspaces/{workspaceId}/triage': {},
  'POST /workspaces/{workspaceId}/erasure/preview': {},
  'POST /workspaces/{workspaceId}/erasure': {},
  'GET /forms/{formId}/templates/{kind}': {},
  'PUT /forms/{formId}/templates/{kind}': {},
  'DELETE /forms/{formId}/templates/{kind}': {},
  'POST /forms/{formId}/templates/{kind}/preview': {},
  'POST /hooks': {},
  'GET /hooks': {},
  'DELETE /hooks/{hookId}': { consumes: 'hookId' },
  'GET /hooks/samples/{event}': {},
  'GET /workspaces/{workspaceId}/audit-events': {},
};

/** A path parameter as the fuzz picks it: a real id (whose?) or odd text written as is on the request line. */
type PathValue = { source: 'own' | 'foreign' | 'free' } | { source: 'odd'; text: string };

const ODD_SEGMENTS = fc.oneof(
  fc.constantFrom(
    'x'.repeat(101),
    'x'.repeat(3000),
    '%00',
    'a%00b',
    '%2F',
    'a%2Fb',
    '..',
    '.',
    '%2E%2E',
    '..%2F..%2Fforms',
    '%',
    '%zz',
    '%C0%AE',
    '%ED%A0%80',
    '%FF%FE',
    '%F0%9F%98%80',
    '~',
    ';a=b',
    '*',
    '%20',
    '+',
    "'",
    '%27%20OR%201=1',
    '__proto__',
    'constructor',
    'prototype',
    'null',
    '0',
    '-1',
    '1e400',
  ),
  nastyString.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, 'x'))),
  fc.string({ minLength: 1, maxLength: 30, unit: fc.constantFrom(...'abcXYZ019-_.~!$&()*+,;=:@%') }),
);

const idValue: fc.Arbitrary<PathValue> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ source: 'own' as const }) },
  { weight: 1, arbitrary: fc.constant({ source: 'foreign' as const }) },
  { weight: 1, arbitrary: fc.constant({ source: 'free' as const }) },
  { weight: 3, arbitrary: ODD_SEGMENTS.map((text) => ({ source: 'odd' as const, text })) },
);

/** How each path parameter is picked; an operation whose parameter is not here fails the first test. */
const PATH_PARAMETERS: Record<string, fc.Arbitrary<PathValue>> = {
  workspaceId: idValue,
  formId: idValue,
  submissionId: idValue,
  fileId: idValue,
  hookId: idValue,
  event: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('submission.created', 'submission.spam', 'submission.deleted').map((text) => ({ source: 'odd' as const, text })) },
    { weight: 1, arbitrary: ODD_SEGMENTS.map((text) => ({ source: 'odd' as const, text })) },
  ),
  kind: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('notification', 'autoresponder').map((text) => ({ source: 'odd' as const, text })) },
    { weight: 1, arbitrary: ODD_SEGMENTS.map((text) => ({ source: 'odd' as const, text })) },
  ),
};

/** Whose token the request carries, or what stands in its place. */
const AUTHORIZATION = fc.oneof(
  { weight: 12, arbitrary: fc.constant(['owner']) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ['scoped'],
      ['free'],
      ['none'],
      ['raw', 'Bearer'],
      ['raw', 'Bearer '],
      ['raw', 'Bearer fg_nope'],
      ['raw', 'bearer OWNER'],
      ['raw', 'Bearer  OWNER'],
      ['raw', 'Basic dXNlcjpwYXNz'],
      ['raw', `Bearer ${'a'.repeat(8000)}`],
      ['raw', `Bearer ${'a'.repeat(20_000)}`],
      ['raw', 'Bearer OWNER OWNER'],
      ['raw', 'Bearer OWNER\u00ff'],
      ['twice', 'Bearer fg_nope'],
      ['twice', 'Bearer OWNER'],
    ),
  },
);

/** The Content-Type of a body. */
const CONTENT_TYPE = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string[]>(['application/json']) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string[]>(
      [],
      ['text/plain'],
      ['application/json; charset=utf-8'],
      ['application/json; charset=utf-16le'],
      ['application/json; charset=latin1'],
      ['application/json; charset="UTF-8"'],
      ['APPLICATION/JSON'],
      ['application/json;'],
      ['application/json;;;;'],
      ['application/problem+json'],
      ['application/merge-patch+json'],
      ['application/x-www-form-urlencoded'],
      ['multipart/form-data; boundary=x'],
      ['application/json, text/plain'],
      ['application/jsonx'],
      [''],
      ['application/json', 'text/plain'],
      ['application/json', 'application/json'],
      [`application/json; ${'a=b; '.repeat(1500)}`],
    ),
  },
);

/** Headers besides Authorization and Content-Type. */
const EXTRA_HEADERS = fc.oneof(
  { weight: 10, arbitrary: fc.constant<[string, string][]>([]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<[string, string][]>(
      [['Accept', 'text/html']],
      [['Accept', 'application/xml;q=2, */*;q=-1']],
      [['Accept', 'x'.repeat(4000)]],
      [['Content-Encoding', 'gzip']],
      [['Content-Encoding', 'br, deflate']],
      [['Expect', '100-continue']],
      [['Expect', 'the-unexpected']],
      [['X-Forwarded-For', 'not an address, ::1, 999.1.1.1']],
      [['Host', 'example.com']],
      [['Origin', 'null']],
      [['Accept-Charset', 'utf-7']],
      [['X-Http-Method-Override', 'DELETE']],
      [['If-None-Match', '*']],
      [['Range', 'bytes=0-1']],
    ),
  },
);

const METHODS_NOT_ALLOWED = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'FOO', 'M-SEARCH'];

/** How a body is spoiled: each is what a broken or hostile client could send. */
type BodyPlan =
  | { kind: 'valid' }
  | { kind: 'replace'; pick: number; value: unknown }
  | { kind: 'extra key'; pick: number; key: string; value: unknown }
  | { kind: 'prototype keys everywhere'; key: string }
  | { kind: 'deep'; depth: number; shape: 'object' | 'array' | 'mixed' }
  | { kind: 'huge' }
  | { kind: 'invalid utf-8'; pick: number; bytes: Buffer }
  | { kind: 'duplicate key' }
  | { kind: 'not an object'; value: unknown }
  | { kind: 'truncated'; at: number }
  | { kind: 'empty' }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'none' };

const BODY_PLAN: fc.Arbitrary<BodyPlan> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: wrongValue }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('extra key' as const),
      pick: fc.nat(),
      key: fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, 'id', 'workspaceId', 'createdAt', 'plan', ''), nastyString),
      value: wrongValue,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prototype keys everywhere' as const), key: fc.constantFrom(...PROTOTYPE_KEYS) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      depth: fc.constantFrom(33, 100, 10_000),
      shape: fc.constantFrom('object' as const, 'array' as const, 'mixed' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'huge' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('invalid utf-8' as const), pick: fc.nat(), bytes: invalidUtf8 }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'duplicate key' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('not an object' as const), value: fc.oneof(wrongValue, fc.constant([{}])) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncated' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) }) },
);

// the API's body limit is 2 MB (src/app.ts)
const HUGE_BODY_BYTES = 2 * 1024 * 1024 + 100;
const MARK = 'FUZZ-MARK-7f3a';

/** The body's bytes for a plan; null for no body. */
function bodyBytes(valid: unknown, plan: BodyPlan): Buffer | null {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');
  const places = placesIn(valid);
  const placeAt = (pick: number) => places[pick % places.length]!;
  switch (plan.kind) {
    case 'none':
      return null;
    case 'valid':
      return json(valid);
    case 'replace':
      return json(updateAt(valid, placeAt(plan.pick), () => plan.value));
    case 'extra key': {
      const objects = places.filter((place) => isObject(lookup(valid, place)));
      const place = objects[plan.pick % objects.length] ?? [];
      return json(updateAt(valid, place, (old) => objectWith([...Object.entries(old as object), [plan.key, plan.value]])));
    }
    case 'prototype keys everywhere': {
      let poisoned = valid;
      for (const place of places.filter((p) => isObject(lookup(valid, p))).reverse())
        poisoned = updateAt(poisoned, place, (old) => objectWith([...Object.entries(old as object), [plan.key, { polluted: true, isAdmin: 1 }]]));
      return json(poisoned);
    }
    case 'deep':
      return Buffer.from(deepJson(plan.depth, plan.shape));
    case 'huge':
      return Buffer.from(JSON.stringify({ ...(isObject(valid) ? valid : {}), name: 'x'.repeat(HUGE_BODY_BYTES) }));
    case 'invalid utf-8': {
      const text = JSON.stringify(updateAt(valid, placeAt(plan.pick), () => MARK));
      const [head, tail] = text.split(MARK) as [string, string];
      return Buffer.concat([Buffer.from(head), plan.bytes, Buffer.from(tail)]);
    }
    case 'duplicate key': {
      const text = JSON.stringify(valid);
      return Buffer.from(isObject(valid) && text.length > 2 ? `{"name":"first",${text.slice(1, -1)},"name":{"second":true}}` : text);
    }
    case 'not an object':
      return json(plan.value);
    case 'truncated': {
      const text = JSON.stringify(valid);
      return Buffer.from(text.slice(0, plan.at % Math.max(1, text.length)));
    }
    case 'empty':
      return Buffer.alloc(0);
    case 'bytes':
      return plan.bytes;
  }
}

/** A body's `workspaceId` names the owner's workspace (filled in when sent), so that a valid-shaped body can succeed. */
function withOwnWorkspace(value: unknown): unknown {
  return isObject(value) && 'workspaceId' in value ? { ...value, workspaceId: WORKSPACE_MARK } : value;
}

const WORKSPACE_MARK = 'FUZZ-OWN-WORKSPACE';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function lookup(value: unknown, place: (string | number)[]): unknown {
  return place.reduce<any>((at, key) => at?.[key], value);
}

interface QueryParameter {
  name: string;
  schema: JsonSchema;
  required?: boolean;
}

/** One query parameter's text: absent, valid, or odd. */
function queryValue(parameter: QueryParameter): fc.Arbitrary<string | null> {
  const odd = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '-1',
      '101',
      '1.5',
      '1e2',
      '1e400',
      'NaN',
      'true',
      '%00',
      '%zz',
      '%',
      '%ED%A0%80',
      '%FF',
      'a%00b',
      'x'.repeat(300),
      'x'.repeat(9000),
    ),
    fc.constantFrom('CURSOR', 'CURSOR-MODIFIED', 'CURSOR-FOREIGN'),
    nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
    edgeNumber.map(String),
  );
  const valid = validValue(parameter.schema).map((v) => encodeURIComponent(String(v)));
  return fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: valid }, { weight: 3, arbitrary: odd });
}

/** Query text from the operation's parameters, with repeated keys, arrays and unknown keys mixed in. */
function queryArbitrary(parameters: QueryParameter[]): fc.Arbitrary<string> {
  const values = parameters.map((p) => queryValue(p).map((v) => (v === null ? null : `${p.name}=${v}`)));
  const extras = fc.array(
    fc.oneof(
      fc
        .constantFrom(...parameters.map((p) => p.name), 'unknown', '__proto__', 'constructor.prototype', '')
        .chain((name) => fc.constantFrom(`${name}=1`, `${name}=2`, `${name}[]=1`, `${name}[a]=1`, `${name}`, `${name}=`, `${name}=a=b`, `${name}%00=1`)),
      fc.constantFrom('&&&', '=', '?', '#x', `${'x'.repeat(17_000)}=1`),
    ),
    { maxLength: 3 },
  );
  return fc.tuple(fc.tuple(...values), extras).map(([own, extra]) => [...own.filter((v) => v !== null), ...extra].join('&'));
}

interface Operation {
  key: string;
  method: string;
  template: string;
  pathParameters: string[];
  query: QueryParameter[];
  body: JsonSchema | null;
  fuzz: OperationFuzz;
}

/** A request as the fuzz draws it, before its ids and tokens are resolved. */
interface DrawnRequest {
  method: string;
  path: Record<string, PathValue>;
  query: string;
  authorization: readonly string[];
  contentType: string[];
  headers: [string, string][];
  body: Buffer | null;
  bodyPlan: BodyPlan['kind'];
}

function requestArbitrary(operation: Operation): fc.Arbitrary<DrawnRequest> {
  const path: Record<string, fc.Arbitrary<PathValue>> = {};
  for (const name of operation.pathParameters) path[name] = PATH_PARAMETERS[name]!;
  const hasBody = operation.body !== null;
  return fc
    .record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS_NOT_ALLOWED) }),
      path: fc.record(path),
      query: fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 3, arbitrary: queryArbitrary(operation.query) }),
      authorization: AUTHORIZATION,
      contentType: CONTENT_TYPE,
      headers: EXTRA_HEADERS,
      body: fc
        .tuple(
          hasBody ? validValue(operation.body!).map(withOwnWorkspace) : fc.constant({}),
          hasBody ? BODY_PLAN : fc.oneof({ weight: 6, arbitrary: fc.constant<BodyPlan>({ kind: 'none' }) }, { weight: 1, arbitrary: BODY_PLAN }),
        )
        .map(([valid, plan]) => ({ bytes: bodyBytes(valid, plan), plan: plan.kind })),
    })
    .map(({ body, ...rest }) => ({ ...rest, body: body.bytes, bodyPlan: body.plan }));
}

/** Whether a drawn request differs from what a correct client of the operation sends. */
function isBadInput(operation: Operation, request: DrawnRequest): boolean {
  return (
    request.method !== operation.method ||
    Object.values(request.path).some(
      (v) =>
        v.source !== 'own' &&
        !(v.source === 'odd' && ['notification', 'autoresponder', 'submission.created', 'submission.spam', 'submission.deleted'].includes(v.text)),
    ) ||
    request.query !== '' ||
    request.authorization[0] !== 'owner' ||
    request.contentType.length !== 1 ||
    request.contentType[0] !== 'application/json' ||
    request.headers.length > 0 ||
    !['valid', 'none'].includes(request.bodyPlan)
  );
}

describe('fuzz: every operation of the management API', () => {
  const seed = fuzzSeed('fuzz-api');
  const counts = new FuzzCounts();
  let app: TestApp;
  let owner: Account;
  let foreign: Account;
  let free: Account;
  let scopedToken: string;
  const ids = {
    form: '',
    submission: '',
    foreignForm: '',
    foreignSubmission: '',
    freeForm: '',
    file: '',
    foreignFile: '',
    freeFile: '',
    hook: '',
    foreignHook: '',
    freeHook: '',
  };
  const cursors = { own: '', foreign: '' };
  const defects: string[] = [];
  const operations: Operation[] = [];
  let refusalsUnchanged = 0;
  let foreignReads = 0;

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    foreign = await createAccount(app);
    free = await createAccount(app, { plan: 'FREE' });
    // the owner also belongs to a free workspace: requests touching it must answer upgrade_required
    await app.ctx.workspaces.addMember(free.workspaceId, owner.email);
    scopedToken = await createToken(app, owner.userId, ['forms:read']);
    ids.form = (await createForm(app, owner)).id;
    ids.foreignForm = (await createForm(app, foreign)).id;
    ids.freeForm = (await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free' })).id;
    for (let i = 0; i < 3; i++) ids.submission = (await postJson(app, ids.form, { message: `hello ${i}` })).body.id;
    ids.foreignSubmission = (await postJson(app, ids.foreignForm, { message: 'not yours' })).body.id;
    // each file in a form of its own, which no drawn request deletes (a form's deletion with files is the intake's to handle)
    const fileOf = async (account: Account) => {
      const form = await app.ctx.forms.createForm(account.userId, account.workspaceId, { name: 'With a file' });
      return (await insertSubmissionWithFiles(app, form, [{ field: 'cv', name: 'cv.pdf', type: 'application/pdf', bytes: '%PDF-1.7' }])).files[0]!.id;
    };
    ids.file = await fileOf(owner);
    ids.foreignFile = await fileOf(foreign);
    ids.freeFile = await fileOf(free);
    ids.hook = await hookOf(owner);
    ids.foreignHook = await hookOf(foreign);
    ids.freeHook = await hookOf(free);
    cursors.own = (await app.api('GET', `/forms/${ids.form}/submissions?limit=1`, { token: owner.token })).body.nextCursor;
    await postJson(app, ids.foreignForm, { message: 'not yours either' });
    cursors.foreign = (await app.api('GET', `/forms/${ids.foreignForm}/submissions?limit=1`, { token: foreign.token })).body.nextCursor;
    assert.ok(cursors.own && cursors.foreign, 'cursors to hand back');
    const document = (await app.api('GET', '/openapi.json')).body;
    for (const [template, methods] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, spec] of Object.entries<any>(methods)) {
        const key = `${method.toUpperCase()} ${template}`;
        const parameters: any[] = spec.parameters ?? [];
        operations.push({
          key,
          method: method.toUpperCase(),
          template,
          pathParameters: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          query: parameters.filter((p) => p.in === 'query'),
          body: spec.requestBody?.content?.['application/json']?.schema ?? null,
          fuzz: OPERATIONS[key] ?? {},
        });
      }
    }
  });

  after(async () => {
    printFigures('fuzz-api', {
      requestsSent: counts.requests,
      badInputsTried: counts.badInputs,
      more: {
        operations: operations.length,
        '5xx answers': counts.serverErrors,
        'refusals checked unchanged': refusalsUnchanged,
        'foreign ids refused': foreignReads,
        'answers by status': counts.statusSummary(),
        seed,
      },
    });
    await app?.close();
  });

  test('every operation of the OpenAPI document has a generator, and every generator an operation', () => {
    assert.ok(operations.length >= 17, `the document lists ${operations.length} operations`);
    const missing = operations.filter((o) => !(o.key in OPERATIONS)).map((o) => o.key);
    assert.deepEqual(missing, [], 'operations without an entry in OPERATIONS');
    const unknownParameters = operations.flatMap((o) => o.pathParameters.filter((p) => !(p in PATH_PARAMETERS)).map((p) => `${o.key}: {${p}}`));
    assert.deepEqual(unknownParameters, [], 'path parameters without a generator in PATH_PARAMETERS');
    const stale = Object.keys(OPERATIONS).filter((key) => !operations.some((o) => o.key === key));
    assert.deepEqual(stale, [], 'entries of OPERATIONS the document does not list');
  });

  /** A subscription of the account's workspace, written as the API writes one (a free workspace may not subscribe through it). */
  async function hookOf(account: Account): Promise<string> {
    const id = `hook${Math.random().toString(36).slice(2, 12)}`;
    await app.ctx.database.db
      .insertInto('hooks')
      .values({
        id,
        workspaceId: account.workspaceId,
        formId: null,
        event: 'submission.created',
        targetUrl: 'https://example.com/hook',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        createdBy: account.userId,
        tokenId: null,
        automationKeyId: null,
        lastTriedAt: null,
        lastStatus: null,
        lastError: null,
        createdAt: Date.now(),
      })
      .execute();
    return id;
  }

  /** The id a path parameter names; a consumed one is made for this request alone. */
  async function resolveId(operation: Operation, name: string, value: PathValue): Promise<string> {
    if (value.source === 'odd') return value.text;
    if (name === 'workspaceId') return { own: owner.workspaceId, foreign: foreign.workspaceId, free: free.workspaceId }[value.source];
    if (name === 'submissionId') {
      if (value.source === 'own' && operation.fuzz.consumes === 'submissionId') return (await postJson(app, ids.form, { message: 'to delete' })).body.id;
      return value.source === 'foreign' ? ids.foreignSubmission : ids.submission;
    }
    if (name === 'fileId') return { own: ids.file, foreign: ids.foreignFile, free: ids.freeFile }[value.source];
    if (name === 'hookId') {
      if (value.source === 'own' && operation.fuzz.consumes === 'hookId') return hookOf(owner);
      return { own: ids.hook, foreign: ids.foreignHook, free: ids.freeHook }[value.source];
    }
    if (value.source === 'own' && operation.fuzz.consumes === 'formId') return (await createForm(app, owner, { name: 'To delete' })).id;
    return { own: ids.form, foreign: ids.foreignForm, free: ids.freeForm }[value.source];
  }

  function authorizationHeaders(choice: readonly string[]): [string, string][] {
    const withOwner = (text: string) => text.replace('OWNER', owner.token);
    switch (choice[0]) {
      case 'owner':
        return [['Authorization', `Bearer ${owner.token}`]];
      case 'scoped':
        return [['Authorization', `Bearer ${scopedToken}`]];
      case 'free':
        return [['Authorization', `Bearer ${free.token}`]];
      case 'none':
        return [];
      case 'twice':
        return [
          ['Authorization', `Bearer ${owner.token}`],
          ['Authorization', withOwner(choice[1]!)],
        ];
      default:
        return [['Authorization', withOwner(choice[1]!)]];
    }
  }

  function withCursors(query: string): string {
    const modified = `${cursors.own.slice(0, -2)}${cursors.own.at(-1)}${cursors.own.at(-2)}`;
    return query
      .replaceAll('CURSOR-MODIFIED', encodeURIComponent(modified))
      .replaceAll('CURSOR-FOREIGN', encodeURIComponent(cursors.foreign))
      .replaceAll('CURSOR', encodeURIComponent(cursors.own));
  }

  // A refusal is compared with the dump taken before it; the dump is taken again only after something may have changed.
  let lastDump: Dump | null = null;

  /** Sends one drawn request and checks every property; a failure names the request. */
  async function check(operation: Operation, drawn: DrawnRequest): Promise<void> {
    let target = API_PREFIX + operation.template;
    let dirty = false;
    for (const name of operation.pathParameters) {
      const value = drawn.path[name]!;
      if (value.source === 'own' && (operation.fuzz.consumes === name || (name === 'submissionId' && operation.fuzz.consumes))) dirty = true;
      target = target.replace(`{${name}}`, await resolveId(operation, name, value));
    }
    if (drawn.query !== '') target += `?${withCursors(drawn.query)}`;
    const headers: [string, string][] = [
      ...authorizationHeaders(drawn.authorization),
      ...drawn.contentType.map((t): [string, string] => ['Content-Type', t]),
      ...drawn.headers,
    ];
    const body = drawn.body && Buffer.from(drawn.body.toString('latin1').replaceAll(WORKSPACE_MARK, owner.workspaceId), 'latin1');
    const request: RawRequest = { method: drawn.method, target, headers, body };
    const bad = isBadInput(operation, drawn);
    if (bad) counts.badInputs++;

    if (dirty || lastDump === null) lastDump = await dumpTables(app.ctx.database);
    const before = lastDump;
    const answer = await sendRaw(app.publicUrl, request);
    counts.record(answer?.status ?? null);
    const label = `${operation.key}: ${drawn.method} ${target.slice(0, 200)} [${drawn.bodyPlan}; ${drawn.contentType.join(' + ').slice(0, 60)}; auth ${drawn.authorization[0]}]`;
    if (!answer) {
      defects.push(`${label}: no answer`);
      assert.fail(`${label}: the connection closed without an answer`);
    }
    assert.ok(answer.status < 500, `${label}: ${answer.status} ${answer.body.slice(0, 300)}`);
    assert.ok((answer.status >= 200 && answer.status < 300) || (answer.status >= 400 && answer.status < 500), `${label}: status ${answer.status}`);
    if (answer.status >= 400) {
      const defect = problemDefect(answer, `${app.publicUrl}/docs/errors`, { head: drawn.method === 'HEAD' });
      assert.equal(defect, null, `${label}: ${answer.status} is not a problem document: ${defect}`);
      const after = await dumpTables(app.ctx.database);
      const changed = diffDumps(before, after);
      assert.deepEqual(changed, [], `${label}: the refusal ${answer.status} changed stored data:\n${changed.slice(0, 5).join('\n')}`);
      refusalsUnchanged++;
      lastDump = after;
    } else {
      lastDump = null;
      if (answer.status !== 204 && drawn.method !== 'HEAD') {
        // a file is sent as the type its visitor declared (application/pdf here)
        const type = operation.key === 'GET /files/{fileId}' ? /^application\/pdf$/ : /^(application\/json|text\/csv)/;
        assert.match(answer.headers.get('content-type') ?? '', type, `${label}: ${answer.status} content type`);
        if (/json/.test(answer.headers.get('content-type') ?? '')) JSON.parse(answer.body);
      }
    }
    if (Object.values(drawn.path).some((v) => v.source === 'foreign')) {
      assert.ok(answer.status >= 400, `${label}: another account's resource answered ${answer.status}`);
      foreignReads++;
    }
  }

  test('random and boundary requests to every operation: no 5xx, problem documents, refusals change nothing', { timeout: 120_000 }, async () => {
    for (const [i, operation] of operations.entries()) {
      await assertProperty(
        fc.asyncProperty(requestArbitrary(operation), (drawn) => check(operation, drawn)),
        { seed: seed + i, numRuns: RUNS_PER_OPERATION },
      );
    }
    assert.equal(counts.serverErrors, 0, '5xx answers');
  });

  test('any operation with any method, path and header: the same properties', { timeout: 120_000 }, async () => {
    const odd = fc.constantFrom(...operations).chain((operation) =>
      requestArbitrary(operation).chain((drawn) =>
        fc.record({
          operation: fc.constant(operation),
          drawn: fc.record({ method: fc.constantFrom(...METHODS_NOT_ALLOWED, operation.method) }).map(({ method }) => ({ ...drawn, method })),
        }),
      ),
    );
    await assertProperty(
      fc.asyncProperty(odd, ({ operation, drawn }) => check(operation, drawn)),
      { seed, numRuns: RUNS_OF_ODD_REQUESTS },
    );
    assert.equal(counts.serverErrors, 0, '5xx answers');
  });

  test('the process survives: the service still answers and every refusal was checked', async () => {
    const health = await sendRaw(app.publicUrl, { method: 'GET', target: '/healthz', headers: [] });
    assert.equal(health?.status, 200);
    const me = await app.api('GET', '/me', { token: owner.token });
    assert.equal(me.status, 200);
    assert.deepEqual(defects, []);
    assert.equal(counts.serverErrors, 0);
    assert.ok(refusalsUnchanged > 0);
  });
});
