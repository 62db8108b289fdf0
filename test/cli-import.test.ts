import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SourceApi } from '../src/cli/import-source.js';
import { runImport } from '../src/cli/import.js';
import type { ImportSummary } from '../src/cli/import-summary.js';
import { insertRows } from '../src/db/insert-rows.js';
import { idAt } from '../src/ids.js';
import { repairCounts } from '../src/services/count-repair.js';
import { searchTextOf } from '../src/services/search-text.js';
import { startApp, type TestApp } from './helpers/app.js';
import { cliEnv, FROM_SOURCE, killRunningCli, PROJECT_ROOT, runCli } from './helpers/cli.js';
import { until } from './helpers/eventually.js';

// A second Formgate (the source, in-process on loopback) with one workspace of tens of thousands of
// submissions, seeded in bulk; the target is another instance, running while it is imported into.
const SUBMISSIONS = 20_000;
const DAY = 86_400_000;
const quiet = { advance: () => undefined, finish: () => undefined };

interface Seeded {
  workspaceId: string;
  small: string;
  big: string;
  token: string;
  secondWorkspace: string;
}

async function seedSource(source: TestApp): Promise<Seeded> {
  const { ctx } = source;
  const { user, workspace } = await ctx.users.createUser('source@example.com');
  await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
  const big = await ctx.forms.createForm(user.id, workspace.id, {
    name: 'Contact',
    description: 'The contact page',
    technology: 'html',
    notificationEmails: ['team@example.com'],
    emailThreading: true,
    webhookUrl: 'https://example.com/hook',
    slackChannel: '#leads',
    customHoneypot: 'website',
    customSpamWords: 'casino',
    allowedOrigins: ['https://shop.example.com'],
    retentionDays: 3650,
  });
  await ctx.forms.setSecret(big.id, 'TURNSTILE', 'secret-key');
  await ctx.forms.updateForm(user.id, big.id, { spamProtection: 'TURNSTILE' });
  await ctx.templates.putTemplate(user.id, big.id, 'notification', '<p>New message from {{data.name}}</p>');
  const small = await ctx.forms.createForm(user.id, workspace.id, { name: 'Newsletter' });
  // a second workspace (its owner's FREE one became paid above, so this one may be made)
  const second = await ctx.workspaces.createWorkspace(user.id, 'Second');
  await ctx.workspaces.setPlan(second.id, 'DEALIFY', { tellOwners: false });
  const third = await ctx.forms.createForm(user.id, second.id, { name: 'Jobs' });
  await bulkSubmissions(source, workspace.id, big.id, SUBMISSIONS - 100, Date.now() - 60 * DAY);
  await bulkSubmissions(source, workspace.id, small.id, 100, Date.now() - 3 * DAY);
  await bulkSubmissions(source, second.id, third.id, 3, Date.now() - DAY);
  // spam is never listed: it stays at the source
  await bulkSubmissions(source, workspace.id, big.id, 5, Date.now() - DAY, 'spam');
  const { secret } = await ctx.tokens.createToken(user.id, { name: 'export', scopes: ['workspaces:read', 'forms:read', 'submissions:read'] });
  return { workspaceId: workspace.id, small: small.id, big: big.id, token: secret, secondWorkspace: second.id };
}

let seq = 0;
/** `count` submissions spread over the days from `from` to now, written in bulk as intake stores them. */
async function bulkSubmissions(app: TestApp, workspaceId: string, formId: string, count: number, from: number, status: 'accepted' | 'spam' = 'accepted') {
  const span = Date.now() - from;
  const rows = Array.from({ length: count }, (_, i) => {
    const createdAt = Math.floor(from + (span * i) / count);
    const data = { name: `Person ${seq}`, email: `person${seq}@example.com`, message: `word${seq++} hello`, tags: ['a', 'b'] };
    return {
      id: idAt(createdAt),
      formId,
      workspaceId,
      data: JSON.stringify(data),
      status,
      searchText: searchTextOf(data),
      emailControls: null,
      spamReasons: status === 'spam' ? '[]' : null,
      createdAt,
    };
  });
  const columns = ['id', 'formId', 'workspaceId', 'data', 'status', 'searchText', 'emailControls', 'spamReasons', 'createdAt'] as const;
  await app.ctx.database.transaction((trx) => insertRows(trx, 'submissions', columns, rows));
}

/** id, form, time and data of every accepted submission, in id order: what must arrive unchanged. */
async function accepted(app: TestApp, formIds: string[]): Promise<string[]> {
  const rows = await app.ctx.database.db
    .selectFrom('submissions')
    .select(['id', 'formId', 'createdAt', 'data'])
    .where('formId', 'in', formIds)
    .where('status', '=', 'accepted')
    .orderBy('id')
    .execute();
  return rows.map((r) => `${r.id} ${r.formId} ${Number(r.createdAt)} ${JSON.stringify(typeof r.data === 'string' ? JSON.parse(r.data) : r.data)}`);
}

async function count(app: TestApp, table: 'submissions' | 'jobs' | 'forms' | 'workspaces'): Promise<number> {
  const row = await app.ctx.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('formgate import', () => {
  let source: TestApp;
  let target: TestApp;
  let seeded: Seeded;
  let ownerId: string;
  const importInto = (app: TestApp, options: { workspace?: string; token?: string } = {}): Promise<ImportSummary> =>
    runImport(app.ctx, new SourceApi({ baseUrl: source.baseUrl, token: options.token ?? seeded.token }), { owner: 'owner@example.com', ...options }, quiet);

  before(async () => {
    source = await startApp();
    target = await startApp();
    seeded = await seedSource(source);
    ownerId = (await target.ctx.users.createUser('owner@example.com')).user.id;
  });
  after(async () => {
    killRunningCli();
    await target?.close();
    await source?.close();
  });

  it('copies workspaces, forms, templates and submissions with their ids, times and data; delivers nothing; counts as intake does', async () => {
    const before = await target.fetch('POST', `${target.submitUrl}/${seeded.big}`, { body: { name: 'x' }, headers: { accept: 'application/json' } });
    assert.equal(before.status, 404, 'the running target does not know the form yet');

    const started = Date.now();
    const summary = await importInto(target);
    const ms = Date.now() - started;
    process.stderr.write(`# imported ${summary.submissions.created} submissions in ${ms} ms (${process.env.FORMGATE_TEST_DB ?? 'sqlite'})\n`);
    assert.equal(summary.stopped, undefined);
    assert.deepEqual(summary.workspaces, { created: 2, existing: 0, conflicts: 0, skipped: 0 });
    assert.deepEqual(summary.forms, { created: 3, existing: 0, conflicts: 0, skipped: 0 });
    assert.deepEqual(summary.templates, { created: 1, existing: 0, conflicts: 0, skipped: 0 });
    assert.deepEqual(summary.submissions, { created: SUBMISSIONS + 3, existing: 0, conflicts: 0, skipped: 0 });
    const forms = [seeded.big, seeded.small];
    assert.deepEqual(await accepted(target, forms), await accepted(source, forms));
    assert.equal(await count(target, 'jobs'), 0, 'nothing enqueued for delivery');

    // settings as the API shows them; the CAPTCHA waits for its secret key, which is listed to do
    const token = (await target.ctx.tokens.createToken(ownerId, { name: 't', scopes: ['forms:read', 'submissions:read'] })).secret;
    const there = (await source.api('GET', `/forms/${seeded.big}`, { token: seeded.token })).body;
    const here = (await target.api('GET', `/forms/${seeded.big}`, { token })).body;
    assert.deepEqual(here, { ...there, spamProtection: null });
    assert.ok(
      summary.toDo.some((l) => l.includes(seeded.big) && l.includes('TURNSTILE') && l.includes('set-secret')),
      summary.toDo.join('\n'),
    );
    assert.ok(
      summary.toDo.some((l) => l.includes(seeded.big) && l.includes('--provider SLACK')),
      summary.toDo.join('\n'),
    );
    assert.ok(
      summary.toDo.some((l) => l.includes(seeded.big) && l.includes('webhook-secret')),
      summary.toDo.join('\n'),
    );
    assert.ok(
      summary.toDo.some((l) => l.startsWith('Spam')),
      summary.toDo.join('\n'),
    );
    const template = await target.api('GET', `/forms/${seeded.big}/templates/notification`, { token });
    assert.equal(template.body.code, '<p>New message from {{data.name}}</p>');

    // listing and search here answer as they do at the source
    const page = await target.api('GET', `/forms/${seeded.big}/submissions?limit=5`, { token });
    const sourcePage = await source.api('GET', `/forms/${seeded.big}/submissions?limit=5`, { token: seeded.token });
    assert.deepEqual(page.body.data, sourcePage.body.data);
    const found = await target.api('GET', `/forms/${seeded.big}/submissions?search=word1234%20hello`, { token });
    assert.deepEqual(
      found.body.data.map((s: { data: { name: string } }) => s.data.name),
      ['Person 1234'],
    );

    // the day counts and the allowance are what repair-counts computes from the rows
    const repair = await repairCounts(target.ctx.database, { exact: true });
    assert.equal(repair.dayCounts.corrected, 0);
    assert.equal(repair.submissionsUsed.corrected, 0);
    const workspace = await target.ctx.database.db
      .selectFrom('workspaces')
      .select(['submissionsUsed', 'ownerId', 'plan'])
      .where('id', '=', seeded.workspaceId)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...workspace, submissionsUsed: Number(workspace.submissionsUsed) }, { submissionsUsed: SUBMISSIONS, ownerId, plan: 'BUNDLE_50000' });

    // the running target takes submissions to the imported form at once
    const after = await target.fetch('POST', `${target.submitUrl}/${seeded.big}`, {
      body: { name: 'new here' },
      headers: { accept: 'application/json', origin: 'https://shop.example.com' },
    });
    assert.equal(after.status, 200, JSON.stringify(after.body));
  });

  it('a second run adds nothing; a third adds what is new at the source and names settings changed there', async () => {
    const second = await importInto(target);
    assert.deepEqual(second.submissions, { created: 0, existing: SUBMISSIONS + 3, conflicts: 0, skipped: 0 });
    assert.deepEqual(second.forms, { created: 0, existing: 3, conflicts: 0, skipped: 0 });
    assert.deepEqual(second.templates, { created: 0, existing: 1, conflicts: 0, skipped: 0 });
    assert.ok(!second.toDo.some((l) => l.includes('changed at the source')), second.toDo.join('\n'));

    await bulkSubmissions(source, seeded.workspaceId, seeded.small, 150, Date.now() - 1000);
    const user = await source.ctx.users.requireByEmail('source@example.com');
    await source.ctx.forms.updateForm(user.id, seeded.small, { name: 'Newsletter 2' });
    const third = await importInto(target, { workspace: seeded.workspaceId });
    assert.deepEqual(third.workspaces, { created: 0, existing: 1, conflicts: 0, skipped: 0 });
    assert.deepEqual(third.submissions, { created: 150, existing: SUBMISSIONS, conflicts: 0, skipped: 0 });
    assert.ok(
      third.toDo.some((l) => l.includes(seeded.small) && l.includes('changed at the source since it was imported (name)')),
      third.toDo.join('\n'),
    );
    assert.deepEqual(await accepted(target, [seeded.small]), await accepted(source, [seeded.small]));
    const repair = await repairCounts(target.ctx.database, { exact: true });
    assert.equal(repair.dayCounts.corrected, 0);
  });

  it('an interrupted run (killed part way) goes on when run again', async () => {
    const fresh = await startApp();
    try {
      await fresh.ctx.users.createUser('owner@example.com');
      const env = childEnv(fresh);
      const args = ['import', '--from', source.baseUrl, '--token', seeded.token, '--owner', 'owner@example.com', '--json'];
      const child = spawn(process.execPath, [...FROM_SOURCE, ...args], { cwd: PROJECT_ROOT, env, stdio: 'ignore' });
      await until('a part of the submissions imported', async () => (await count(fresh, 'submissions')) >= 2_000, 30_000);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
      const part = await count(fresh, 'submissions');
      assert.ok(part < SUBMISSIONS + 150, `killed part way (${part})`);

      const again = await runCli(env, args);
      assert.equal(again.code, 0, again.stderr);
      const summary = JSON.parse(again.stdout);
      assert.equal(summary.submissions.created + summary.submissions.existing, SUBMISSIONS + 153);
      assert.ok(summary.submissions.existing >= part - 3 && summary.submissions.existing <= part, `${summary.submissions.existing} of ${part} were there`);
      const forms = [seeded.big, seeded.small];
      assert.deepEqual(await accepted(fresh, forms), await accepted(source, forms));
      assert.equal(await count(fresh, 'jobs'), 0);
      const repair = await repairCounts(fresh.ctx.database, { exact: true });
      assert.equal(repair.dayCounts.corrected, 0);
      assert.equal(repair.submissionsUsed.corrected, 0);
    } finally {
      await fresh.close();
    }
  });

  it('stops with what it did when the source fails for good, only ever GETting; the next run goes on', async () => {
    // a proxy in front of the source that fails every request after the 30th
    const methods = new Set<string>();
    let served = 0;
    const proxy = createServer(async (request, response) => {
      methods.add(request.method!);
      if (++served > 30) {
        response.writeHead(503).end();
        return;
      }
      const answer = await fetch(`${source.baseUrl}${request.url!.slice('/public/v1'.length)}`, { headers: { authorization: request.headers.authorization! } });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const fresh = await startApp();
    try {
      await fresh.ctx.users.createUser('owner@example.com');
      const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/public/v1`;
      const failing = new SourceApi({ baseUrl, token: seeded.token, tries: 2, baseDelayMs: 1 });
      const stopped = await runImport(fresh.ctx, failing, { owner: 'owner@example.com' }, quiet);
      assert.match(stopped.stopped ?? '', /503 from \/public\/v1\/forms\/.*, 2 times/);
      assert.ok(stopped.submissions.created > 0 && stopped.submissions.created < SUBMISSIONS, `${stopped.submissions.created} before it stopped`);
      assert.equal(await count(fresh, 'submissions'), stopped.submissions.created, 'whole pages committed, nothing half-written');
      assert.deepEqual([...methods], ['GET']);

      const resumed = await importInto(fresh);
      assert.equal(resumed.stopped, undefined);
      assert.equal(resumed.submissions.existing, stopped.submissions.created);
      assert.deepEqual(await accepted(fresh, [seeded.big, seeded.small]), await accepted(source, [seeded.big, seeded.small]));
      const repair = await repairCounts(fresh.ctx.database, { exact: true });
      assert.equal(repair.dayCounts.corrected + repair.submissionsUsed.corrected, 0);
    } finally {
      await fresh.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('reports ids taken by another account as conflicts and leaves them untouched', async () => {
    // this instance asks recipients to confirm: imported addresses wait for a link, sent by nobody yet
    const other = await startApp({ confirmRecipients: 'on' });
    try {
      await other.ctx.users.createUser('owner@example.com');
      const stranger = await other.ctx.users.createUser('stranger@example.com');
      const db = other.ctx.database.db;
      const now = Date.now();
      // the second workspace's id, one form's id and one submission's id are the stranger's here
      await db
        .insertInto('workspaces')
        .values({
          id: seeded.secondWorkspace,
          name: 'Mine',
          plan: 'BUNDLE_50000',
          ownerId: stranger.user.id,
          submissionsUsed: 0,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
      await db
        .insertInto('workspaceMembers')
        .values({ workspaceId: seeded.secondWorkspace, userId: stranger.user.id, role: 'owner', createdAt: now })
        .execute();
      await db
        .insertInto('forms')
        .values({
          id: seeded.small,
          workspaceId: stranger.workspace.id,
          name: 'Theirs',
          description: null,
          technology: null,
          notificationEmails: '[]',
          emailThreading: 0,
          webhookUrl: null,
          slackChannel: null,
          customHoneypot: null,
          customSpamWords: null,
          spamProtection: null,
          createdAt: now,
          updatedAt: now,
        })
        .execute();
      const [taken] = await accepted(source, [seeded.big]);
      const takenId = taken!.split(' ')[0]!;
      const theirs = await other.ctx.forms.createForm(stranger.user.id, stranger.workspace.id, { name: 'Other' });
      await db
        .insertInto('submissions')
        .values({
          id: takenId,
          formId: theirs.id,
          workspaceId: stranger.workspace.id,
          data: '{"theirs":1}',
          status: 'accepted',
          searchText: '',
          emailControls: null,
          spamReasons: null,
          createdAt: now,
        })
        .execute();

      const summary = await importInto(other);
      assert.deepEqual(summary.workspaces, { created: 1, existing: 0, conflicts: 1, skipped: 0 });
      assert.deepEqual(summary.forms, { created: 1, existing: 0, conflicts: 1, skipped: 0 });
      assert.equal(summary.submissions.conflicts, 1);
      assert.equal(summary.submissions.created, SUBMISSIONS - 100 - 1);
      assert.ok(
        summary.conflicts.some((l) => l.includes(takenId)),
        summary.conflicts.join('\n'),
      );
      const mine = await db.selectFrom('workspaces').select(['name', 'ownerId']).where('id', '=', seeded.secondWorkspace).executeTakeFirstOrThrow();
      assert.deepEqual(mine, { name: 'Mine', ownerId: stranger.user.id });
      const form = await db.selectFrom('forms').select(['name', 'workspaceId']).where('id', '=', seeded.small).executeTakeFirstOrThrow();
      assert.deepEqual(form, { name: 'Theirs', workspaceId: stranger.workspace.id });
      const row = await db.selectFrom('submissions').select(['formId', 'data']).where('id', '=', takenId).executeTakeFirstOrThrow();
      assert.equal(row.formId, theirs.id);
      const waiting = await db
        .selectFrom('recipientConfirmations')
        .select(['email', 'state', 'lastSentAt'])
        .where('workspaceId', '=', seeded.workspaceId)
        .execute();
      assert.deepEqual(waiting, [{ email: 'team@example.com', state: 'pending', lastSentAt: null }]);
      assert.equal(await count(other, 'jobs'), 0, 'no confirmation link emailed');
      assert.ok(
        summary.toDo.some((l) => l.includes('team@example.com receive notifications once confirmed')),
        summary.toDo.join('\n'),
      );
    } finally {
      await other.close();
    }
  });

  it('stops with a clear message, writing nothing, on a bad token, URL or owner', async () => {
    const env = childEnv(target);
    const workspacesBefore = await count(target, 'workspaces');
    const run = (args: string[]) => runCli(env, ['import', '--json', ...args]);
    const base = ['--from', source.baseUrl, '--token', seeded.token, '--owner', 'owner@example.com'];

    const badToken = await run(['--from', source.baseUrl, '--token', 'nope', '--owner', 'owner@example.com']);
    assert.equal(badToken.code, 1);
    assert.match(JSON.parse(badToken.stdout).error.message, /refused the token \(401 invalid_token\)/);
    const notApi = await run(['--from', `${source.submitUrl}/public/v1`, '--token', seeded.token, '--owner', 'owner@example.com']);
    assert.equal(notApi.code, 1);
    assert.match(JSON.parse(notApi.stdout).error.message, /no management API|not JSON|did not answer/);
    const notUrl = await run(['--from', 'ftp://example.com', ...base.slice(2)]);
    assert.equal(notUrl.code, 2);
    const noOwner = await run([...base.slice(0, 4), '--owner', 'nobody@example.com']);
    assert.equal(noOwner.code, 1);
    assert.match(JSON.parse(noOwner.stdout).error.message, /No account has the e-mail address nobody@example.com here/);
    const noWorkspace = await run([...base, '--workspace', 'unknown']);
    assert.equal(noWorkspace.code, 1);
    assert.match(JSON.parse(noWorkspace.stdout).error.message, /does not see a workspace unknown/);
    const narrow = (
      await source.ctx.tokens.createToken((await source.ctx.users.requireByEmail('source@example.com')).id, { name: 'n', scopes: ['forms:read'] })
    ).secret;
    const scope = await run(['--from', source.baseUrl, '--token', narrow, '--owner', 'owner@example.com']);
    assert.match(JSON.parse(scope.stdout).error.message, /lacks workspaces:read, submissions:read/);
    assert.equal(await count(target, 'workspaces'), workspacesBefore);

    // without --json: the summary as text on stdout, progress on stderr; the token read from stdin
    const text = await runWithInput(env, ['import', '--from', source.baseUrl, '--token', '-', '--owner', 'owner@example.com'], `${seeded.token}\n`);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`Submissions +0 created, ${SUBMISSIONS + 153} already here, 0 conflict\\(s\\), 0 skipped`));
    assert.match(text.stdout, /To do:\n/);
    assert.match(text.stdout, /Point each HTML form's action at http:\/\/\S+\/<form id>: the ids are unchanged/);
    assert.match(text.stderr, /formgate: Importing submissions: \d+/);
  });
});

/** The environment of a child `formgate` on `app`'s database. */
function childEnv(app: TestApp): NodeJS.ProcessEnv {
  const config = app.ctx.config;
  const url = config.database.dialect === 'sqlite' ? `sqlite:${config.database.file}` : config.database.url;
  return cliEnv({ url, dataDir: config.dataDir, drop: async () => undefined });
}

/** Runs `formgate <args>` with `input` on its stdin. */
function runWithInput(env: NodeJS.ProcessEnv, args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...FROM_SOURCE, ...args], { cwd: PROJECT_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
