import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { type Answer, startApp, type TestApp } from '../helpers/app.js';
import type { PageAnswer } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { diffDumps, dumpTables } from '../helpers/dump.js';
import { printFigures } from '../helpers/figures.js';
import { apiOperations, dashboardRoutes, fillPath, paramsOf, type Route } from '../helpers/routes.js';
import { API_ENTRIES, DASHBOARD_ENTRIES, type Entry, FIXED_PARAMS, NATURAL_KIND, type Variant } from './isolation-routes.js';
import { type Holdings, holdings, idsOf, privateWord, SHARED_WORD } from './two-accounts.js';

// every name and value of the victim's holdings carries this word; no answer to the intruder may
const VICTIM = 'victim';
const LEAK = new RegExp(VICTIM, 'i');

/** What an answer says, with the ids it was asked about (and per-request CSRF tokens) masked. */
interface Seen {
  status: number;
  type: string;
  location: string | null;
  body: string;
}

function mask(text: string, ids: string[]): string {
  let masked = text.replace(/(name="_csrf" value=")[^"]+"/g, '$1<csrf>"');
  for (const id of ids) masked = masked.split(id).join('<id>');
  return masked;
}

/**
 * Every API operation (from the OpenAPI document) and every dashboard route (from the Fastify
 * instance), with every kind of the victim's ids in every id slot: the intruder's answer must be
 * the answer for an id that does not exist, show nothing of the victim's, and change no row.
 */
describe(`isolation matrix: one account reaches nothing of another (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let intruder: Holdings;
  let victim: Holdings;
  let requestsSent = 0;
  let crossAccountReads = 0;
  let crossAccountChanges = 0;
  let pairsCompared = 0;
  const covered = { operations: 0, pages: 0 };

  before(async () => {
    app = await startApp();
    // the instance admin is someone else: neither account may reach the admin's pages
    await app.ctx.users.createUser('admin@example.com', 'the admin password');
    intruder = await holdings(app, 'intruder');
    victim = await holdings(app, VICTIM);
  });
  after(async () => {
    await app?.close();
    printFigures('isolation matrix', {
      requestsSent,
      // each pair: a request carrying another account's id, beside one carrying an id of nobody's
      badInputsTried: pairsCompared,
      more: {
        'cross-account reads': crossAccountReads,
        'cross-account changes': crossAccountChanges,
        'operations covered': covered.operations,
        'pages covered': covered.pages,
        'id pairs compared': pairsCompared,
      },
    });
  });

  /** Answers showing any of the victim's names or values count as cross-account reads. */
  function look(what: string, text: string): void {
    if (LEAK.test(text)) {
      crossAccountReads++;
      assert.fail(`${what} shows the victim's data: ${text.slice(0, 400)}`);
    }
  }

  /** Checks that the table of entries and the service's routes name the same routes. */
  function entriesFor(routes: Route[], entries: Record<string, Entry>, surface: string): [Route, Entry][] {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    const missing = keys.filter((k) => !(k in entries));
    assert.deepEqual(missing, [], `${surface} routes with no entry in isolation-routes.ts: decide what the matrix sends them`);
    const stale = Object.keys(entries).filter((k) => !keys.includes(k));
    assert.deepEqual(stale, [], `${surface} entries for routes that no longer exist`);
    return routes.map((r) => [r, entries[`${r.method} ${r.path}`]!]);
  }

  /**
   * The id slots of a route (path parameters, and `:param` placeholders of its query and body) filled
   * two ways: with the victim's id in one slot (each kind of id in turn; the other slots hold the
   * intruder's own ids), and with an id that exists nowhere in that slot instead.
   */
  function* pairsOf(route: Route, variant: Variant): Generator<{ foreign: Record<string, string>; missing: Record<string, string>; masked: string[] }> {
    const placeholders =
      JSON.stringify(variant)
        .match(/":(\w+)"/g)
        ?.map((p) => p.slice(2, -1)) ?? [];
    const slots = [...new Set([...paramsOf(route.path), ...placeholders])].filter((p) => !(p in FIXED_PARAMS));
    const own = idsOf(intruder);
    const theirs = idsOf(victim);
    const natural = (ids: Record<string, string>, slot: string) => {
      const kind = NATURAL_KIND[slot];
      if (!kind) throw new Error(`no kind of id for :${slot} (${route.method} ${route.path}): add it to NATURAL_KIND`);
      return ids[kind]!;
    };
    if (slots.length > 1) {
      const foreign = Object.fromEntries(slots.map((s) => [s, natural(theirs, s)]));
      const missing = Object.fromEntries(slots.map((s) => [s, newId()]));
      yield { foreign, missing, masked: [...Object.values(foreign), ...Object.values(missing)] };
    }
    for (const slot of slots) {
      for (const id of Object.values(theirs)) {
        const base = Object.fromEntries(slots.map((s) => [s, natural(own, s)]));
        const absent = newId();
        yield { foreign: { ...base, [slot]: id }, missing: { ...base, [slot]: absent }, masked: [id, absent] };
      }
    }
  }

  function substitute(value: unknown, ids: Record<string, string>): unknown {
    if (typeof value === 'string' && value.startsWith(':')) return ids[value.slice(1)] ?? value;
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, ids)]));
    return value;
  }

  function target(route: Route, variant: Variant, ids: Record<string, string>): { path: string; body?: Record<string, unknown> } {
    const path = fillPath(route.path, { ...FIXED_PARAMS, ...ids });
    const query = variant.query ? `?${new URLSearchParams(substitute(variant.query, ids) as Record<string, string>)}` : '';
    return { path: path + query, ...(variant.body ? { body: substitute(variant.body, ids) as Record<string, unknown> } : {}) };
  }

  async function callApi(route: Route, variant: Variant, ids: Record<string, string>): Promise<Answer> {
    const { path, body } = target(route, variant, ids);
    requestsSent++;
    return app.api(route.method, path, { token: intruder.token, ...(body ? { body } : {}) });
  }

  async function callPage(route: Route, variant: Variant, ids: Record<string, string>): Promise<PageAnswer> {
    const { path, body } = target(route, variant, ids);
    requestsSent++;
    if (route.method === 'GET') return intruder.client.get(path);
    return intruder.client.post(
      path,
      Object.entries(body ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
    );
  }

  function seenApi(answer: Answer, ids: string[]): Seen {
    const text = answer.body === null ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    return { status: answer.status, type: answer.headers.get('content-type') ?? '', location: null, body: mask(text, ids) };
  }

  function seenPage(answer: PageAnswer, ids: string[]): Seen {
    const location = answer.location === null ? null : mask(decodeURIComponent(answer.location), ids);
    return { status: answer.status, type: answer.headers.get('content-type') ?? '', location, body: mask(answer.html, ids) };
  }

  async function runMatrix<A>(
    surface: string,
    pairs: [Route, Entry][],
    call: (route: Route, variant: Variant, ids: Record<string, string>) => Promise<A>,
    seen: (answer: A, ids: string[]) => Seen,
  ): Promise<number> {
    const rowsBefore = await dumpTables(app.ctx.database);
    let tried = 0;
    for (const [route, entry] of pairs) {
      if ('own' in entry) continue;
      tried++;
      for (const variant of entry.variants) {
        for (const { foreign, missing, masked } of pairsOf(route, variant)) {
          const what = `${surface} ${route.method} ${target(route, variant, foreign).path}`;
          const theirs = seen(await call(route, variant, foreign), masked);
          const nobodys = seen(await call(route, variant, missing), masked);
          pairsCompared++;
          look(what, theirs.body + (theirs.location ?? ''));
          if (JSON.stringify(theirs) !== JSON.stringify(nobodys)) crossAccountReads++;
          assert.deepEqual(theirs, nobodys, `${what}: the answer for another account's id differs from the answer for an id that does not exist`);
          assert.ok(theirs.status >= 400, `${what}: refused (${theirs.status})`);
        }
      }
    }
    const changed = diffDumps(rowsBefore, await dumpTables(app.ctx.database));
    crossAccountChanges += changed.length;
    assert.deepEqual(changed, [], `${surface}: nothing changed`);
    return tried;
  }

  it('answers every API operation on another account’s ids as on ids that do not exist, and changes nothing', async () => {
    const operations = await apiOperations(app);
    covered.operations = operations.length;
    await runMatrix('API', entriesFor(operations, API_ENTRIES, 'API'), callApi, seenApi);
  });

  it('answers every dashboard page and change on another account’s ids as on ids that do not exist, and changes nothing', async () => {
    const routes = dashboardRoutes(app);
    covered.pages = routes.length;
    await runMatrix('dashboard', entriesFor(routes, DASHBOARD_ENTRIES, 'dashboard'), callPage, seenPage);
    // the intruder's session survived every refusal: the matrix proved something
    assert.equal((await intruder.client.get(`/w/${intruder.workspace}`)).status, 200);
  });

  it('lists, searches and exports the caller’s own rows only, on the API and the dashboard', async () => {
    const rowsBefore = await dumpTables(app.ctx.database);
    const apiGet = async (path: string) => {
      requestsSent++;
      const answer = await app.api('GET', path, { token: intruder.token });
      assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      look(`API GET ${path}`, text);
      return { answer, text };
    };
    const workspaces = (await apiGet('/workspaces?limit=100')).answer.body.data.map((w: { id: string }) => w.id).sort();
    assert.deepEqual(workspaces, [intruder.workspace, intruder.freeWorkspace].sort());
    const forms = (await apiGet(`/forms?workspaceId=${intruder.workspace}`)).answer.body.data.map((f: { id: string }) => f.id);
    assert.deepEqual(forms, [intruder.form]);
    for (const path of [`/forms/${intruder.form}/submissions`, `/workspaces/${intruder.workspace}/submissions`]) {
      const found = (await apiGet(`${path}?search=${SHARED_WORD}`)).answer.body.data.map((s: { id: string }) => s.id);
      assert.deepEqual(found, [intruder.submission], `${path}: the intruder's own submission, found by a word both accounts' submissions hold`);
      assert.deepEqual((await apiGet(`${path}?search=${privateWord(VICTIM)}`)).answer.body.data, [], `${path}: nothing found by the victim's words`);
    }
    for (const format of ['csv', 'json']) {
      const { text } = await apiGet(`/forms/${intruder.form}/submissions/export?format=${format}`);
      assert.match(text, /intruder sender/, `the API's ${format} export holds the intruder's own submission`);
    }

    const page = async (path: string, expected = 200) => {
      requestsSent++;
      const answer = await intruder.client.get(path);
      assert.equal(answer.status, expected, path);
      look(`dashboard GET ${path}`, answer.html + (answer.location ?? ''));
      return answer.html;
    };
    for (const path of [
      '/workspaces',
      `/w/${intruder.workspace}`,
      `/w/${intruder.workspace}/members`,
      '/account/tokens',
      '/account',
      `/forms/${intruder.form}/spam`,
    ]) {
      assert.match(await page(path), /intruder/, `${path} shows the intruder's own things`);
    }
    for (const path of [`/w/${intruder.workspace}/submissions?search=${SHARED_WORD}`, `/forms/${intruder.form}?search=${SHARED_WORD}`]) {
      assert.match(await page(path), /intruder sender/, path);
    }
    for (const path of [`/w/${intruder.workspace}/submissions?search=${privateWord(VICTIM)}`, `/forms/${intruder.form}?search=${privateWord(VICTIM)}`]) {
      assert.doesNotMatch(await page(path), /intruder sender/, `${path}: the victim's words find nothing`);
    }
    for (const format of ['csv', 'json']) {
      for (const path of [`/forms/${intruder.form}/export?format=${format}`, `/w/${intruder.workspace}/export?format=${format}`]) {
        assert.match(await page(path), /intruder sender/, path);
      }
    }
    // and the victim's word does find the victim's submission, for the victim: the searches above could have found it
    requestsSent += 2;
    assert.match((await victim.client.get(`/forms/${victim.form}?search=${privateWord(VICTIM)}`)).html, /victim sender/);
    const theirs = await app.api('GET', `/forms/${victim.form}/submissions?search=${privateWord(VICTIM)}`, { token: victim.token });
    assert.deepEqual(
      theirs.body.data.map((s: { id: string }) => s.id),
      [victim.submission],
    );
    requestsSent++;
    assert.equal((await intruder.client.get('/admin')).status >= 400, true, 'the admin page is not the intruder’s');
    assert.deepEqual(diffDumps(rowsBefore, await dumpTables(app.ctx.database)), []);

    // the one change an account makes without naming an id: a workspace of its own, nobody else's
    // (its free one upgraded first: an account has one free workspace)
    await app.ctx.workspaces.setPlan(intruder.freeWorkspace, 'BUNDLE_50000', { tellOwners: false });
    requestsSent++;
    const created = await app.api('POST', '/workspaces', { token: intruder.token, body: { name: 'intruder second' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const owner = await app.ctx.database.db.selectFrom('workspaces').select('ownerId').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    assert.equal(owner.ownerId, intruder.userId);
    const victimRows = await app.ctx.database.db.selectFrom('workspaceMembers').select('workspaceId').where('userId', '=', victim.userId).execute();
    assert.ok(!victimRows.some((r) => r.workspaceId === created.body.id));
  });
});
