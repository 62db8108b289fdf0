import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { insertRows } from '../src/db/insert-rows.js';
import { newId } from '../src/ids.js';
import { repairCounts } from '../src/services/count-repair.js';
import { startApp, type TestApp } from './helpers/app.js';
import { cliEnv, FROM_SOURCE, PROJECT_ROOT, runCli } from './helpers/cli.js';
import { DashboardClient } from './helpers/dashboard.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { until } from './helpers/eventually.js';
import { type Account, createAccount, createForm } from './helpers/fixtures.js';
import { postJson, visitorAddresses } from './helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const execFileAsync = promisify(execFile);
const PG_ONLY = TEST_DIALECT !== 'postgres' && 'PostgreSQL only: formgate move copies into a PostgreSQL database (run with FORMGATE_TEST_DB=postgres)';
// nothing listens on port 1: a PostgreSQL that cannot be reached
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/nowhere';
const BULK = 20_000;
const from = visitorAddresses(20);

/** `formgate move …` to completion (a longer deadline than runCli's: 20,000 submissions on a loaded machine). */
async function runMove(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [...FROM_SOURCE, 'move', ...args], { cwd: PROJECT_ROOT, env, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Rows of every table of a PostgreSQL database that hold any (Kysely's own aside). */
async function tablesWithRows(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely%'",
    );
    const holding: string[] = [];
    for (const { name } of rows) if ((await client.query(`SELECT 1 FROM "${name}" LIMIT 1`)).rowCount) holding.push(name);
    return holding.sort();
  } finally {
    await client.end();
  }
}

describe('formgate move: refusals that need no PostgreSQL', () => {
  let source: TestDatabase;
  before(async () => {
    source = await createTestDatabase('sqlite');
    assert.equal((await runCli(cliEnv(source), ['migrate'])).code, 0);
  });
  after(async () => source?.drop());

  it('refuses a source that is already PostgreSQL, and a --to that is not a PostgreSQL URL', async () => {
    const fromPg = await runCli(cliEnv(source, { FORMGATE_DATABASE_URL: UNREACHABLE }), ['move', '--to', UNREACHABLE, '--json']);
    assert.equal(fromPg.code, 2, fromPg.stderr);
    const body = JSON.parse(fromPg.stdout);
    assert.equal(body.error.code, 'move_refused');
    assert.match(body.error.message, /already PostgreSQL: postgres:\/\/postgres@127\.0\.0\.1:1\/nowhere.*pg_dump/);

    for (const to of ['mysql://root@127.0.0.1/formgate', 'sqlite:/tmp/x.db', 'not a url', 'postgres:///no-host']) {
      const result = await runCli(cliEnv(source), ['move', '--to', to, '--dry-run']);
      assert.equal(result.code, 2, `${to}: ${result.stderr}`);
      assert.match(result.stderr, /move refused: --to must be the URL of a PostgreSQL database, such as postgres:\/\//);
      assert.equal(result.stdout, '');
    }
  });

  it('refuses a PostgreSQL that cannot be reached, naming it without its password', async () => {
    const result = await runCli(cliEnv(source), ['move', '--to', 'postgres://formgate:s3cret@127.0.0.1:1/formgate', '--dry-run']);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /move refused: cannot reach PostgreSQL at postgres:\/\/formgate:\*\*\*@127\.0\.0\.1:1\/formgate.*Check --to/);
    assert.doesNotMatch(result.stderr + result.stdout, /s3cret/);
  });

  it('refuses a source whose schema is not this program’s: older (run formgate migrate), newer, or none', async () => {
    const file = source.url.slice('sqlite:'.length);
    const sqlite = new Database(file);
    try {
      const [last] = sqlite.prepare('SELECT name, timestamp FROM kysely_migration ORDER BY name DESC LIMIT 1').all() as { name: string; timestamp: string }[];
      sqlite.prepare('DELETE FROM kysely_migration WHERE name = ?').run(last!.name);
      const older = await runCli(cliEnv(source), ['move', '--to', UNREACHABLE, '--dry-run']);
      assert.equal(older.code, 2, older.stderr);
      assert.match(older.stderr, new RegExp(`older schema than this program's: it lacks migration\\(s\\) ${last!.name}.*formgate migrate`));

      sqlite
        .prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?), (?, ?)')
        .run(last!.name, last!.timestamp, '9999-from-the-future', last!.timestamp);
      const newer = await runCli(cliEnv(source), ['move', '--to', UNREACHABLE, '--dry-run']);
      assert.equal(newer.code, 2, newer.stderr);
      assert.match(newer.stderr, /was migrated by a newer Formgate: it has migration 9999-from-the-future/);
      sqlite.prepare('DELETE FROM kysely_migration WHERE name = ?').run('9999-from-the-future');
    } finally {
      sqlite.close();
    }

    const empty = await createTestDatabase('sqlite');
    try {
      new Database(empty.url.slice('sqlite:'.length)).close();
      const none = await runCli(cliEnv(empty), ['move', '--to', UNREACHABLE, '--dry-run']);
      assert.equal(none.code, 2, none.stderr);
      assert.match(none.stderr, /holds no Formgate data/);
      await empty.drop();
      const missing = await runCli(cliEnv(empty), ['move', '--to', UNREACHABLE, '--dry-run']);
      assert.equal(missing.code, 2, missing.stderr);
      assert.match(missing.stderr, /does not exist; admin commands do not create one/);
    } finally {
      await empty.drop();
    }
  });
});

describe('formgate move: 20,000 submissions from SQLite to PostgreSQL', { skip: PG_ONLY }, () => {
  let source: TestDatabase;
  let target: TestDatabase;
  let receiver: WebhookReceiver;
  let app: TestApp | undefined;
  let moved: TestApp | undefined;
  before(async () => {
    receiver = await startWebhookReceiver();
    source = await createTestDatabase('sqlite');
    target = await createTestDatabase('postgres');
  });
  after(async () => {
    await app?.close();
    await moved?.close();
    await receiver?.close();
    await source?.drop();
    await target?.drop();
  });

  it('refuses while the source is fine but the target is not empty, or holds tables of another program', async () => {
    const other = await createTestDatabase('postgres');
    try {
      assert.equal((await runCli(cliEnv(source), ['migrate'])).code, 0);
      const client = new pg.Client({ connectionString: other.url });
      await client.connect();
      await client.query('CREATE TABLE inventory (sku text)');
      const foreign = await runCli(cliEnv(source), ['move', '--to', other.url, '--dry-run']);
      assert.equal(foreign.code, 2, foreign.stderr);
      assert.match(foreign.stderr, /holds tables that are not Formgate's \(inventory\)/);
      await client.query("INSERT INTO inventory VALUES ('a')");
      await client.end();
      const full = await runCli(cliEnv(source), ['move', '--to', other.url, '--yes', '--json']);
      assert.equal(full.code, 2, full.stderr);
      const body = JSON.parse(full.stdout);
      assert.match(body.error.message, /is not empty: 1 table\(s\) hold rows \(inventory\).*createdb/);
      assert.deepEqual(body.error.errors, ['inventory']);
    } finally {
      await other.drop();
    }
  });

  it('copies everything, verifies it, and the installation works on PostgreSQL: tokens, a session, search, cursors, counts, deliveries sent once', async () => {
    app = await startApp({ allowPrivateWebhooks: 'true' }, { database: source });
    const account: Account = await createAccount(app);
    await app.ctx.users.setPassword(account.userId, 'a long enough password');
    const dashboard = new DashboardClient(app);
    await dashboard.enter('/login', account.email, 'a long enough password');
    const form = await createForm(app, account, { webhookUrl: receiver.url, name: 'Applications' });
    const webhookSecret = await app.ctx.forms.webhookSecret(form.id);
    await app.ctx.forms.setSecret(form.id, 'TURNSTILE', 'turnstile-secret');
    const template = (await app.ctx.templates.putTemplate(account.userId, form.id, 'notification', '<p>New application from {{name}}</p>')).template;

    // three submissions through the real pipeline: their webhooks wait in the outbox (no worker here)
    const posted: string[] = [];
    for (const name of ['Ada', 'Grace', 'Hedy']) {
      const answer = await postJson(app, form.id, { name, city: 'Zanzibar' }, from());
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      posted.push(answer.body.id);
    }
    // Ada's webhook was delivered before the move: done, with its try
    const adaJob = await app.ctx.database.db.selectFrom('jobs').selectAll().where('submissionId', '=', posted[0]!).executeTakeFirstOrThrow();
    await app.ctx.database.db.updateTable('jobs').set({ status: 'done', attempts: 1, updatedAt: Date.now() }).where('id', '=', adaJob.id).execute();
    await app.ctx.database.db
      .insertInto('jobAttempts')
      .values({
        id: newId(),
        jobId: adaJob.id,
        startedAt: Date.now(),
        finishedAt: Date.now(),
        outcome: 'ok',
        statusCode: 200,
        error: null,
        response: null,
        writtenTo: null,
      })
      .execute();

    // then 20,000 older submissions in bulk, with their day counts and allowance as intake keeps them
    const started = Date.now() - 40 * 86_400_000;
    const rows = Array.from({ length: BULK }, (_, i) => {
      const data = { name: `Person ${i}`, note: i === 12_345 ? 'needle-in-the-haystack' : `ordinary ${i % 97}`, answers: { b: i, a: [i, 'x'] } };
      return {
        id: newId(),
        formId: form.id,
        workspaceId: account.workspaceId,
        data: JSON.stringify(data),
        status: (i % 50 === 0 ? 'spam' : 'accepted') as 'spam' | 'accepted',
        searchText: `name\n${data.name.toLowerCase()}\nnote\n${data.note}`,
        emailControls: i % 10 === 0 ? JSON.stringify({ _replyto: `p${i}@example.com` }) : null,
        spamReasons: i % 50 === 0 ? JSON.stringify(['Looks like spam.']) : null,
        createdAt: started + i * 150_000,
      };
    });
    await app.ctx.database.transaction((trx) =>
      insertRows(trx, 'submissions', ['id', 'formId', 'workspaceId', 'data', 'status', 'searchText', 'emailControls', 'spamReasons', 'createdAt'], rows),
    );
    await repairCounts(app.ctx.database, { workspaceId: account.workspaceId });

    // what the API and the dashboard say before the move
    const firstPage = await app.api('GET', `/forms/${form.id}/submissions?limit=25`, { token: account.token });
    assert.equal(firstPage.status, 200);
    const secondPage = await app.api('GET', `/forms/${form.id}/submissions?limit=25&startingAfter=${firstPage.body.nextCursor}`, { token: account.token });
    const needle = await app.api('GET', `/workspaces/${account.workspaceId}/submissions?search=NEEDLE-in-the`, { token: account.token });
    assert.equal(needle.body.data.length, 1);
    const quotaOn = async (on: TestApp) => {
      const listed = await on.api('GET', '/workspaces', { token: account.token });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const quota = listed.body.data.find((w: { id: string }) => w.id === account.workspaceId)?.submissionsQuota;
      assert.ok(quota, 'the workspace is listed with its allowance');
      return quota;
    };
    const quota = await quotaOn(app);
    const days = await app.ctx.stats.formDays(account.userId, form.id);
    const unread = await app.ctx.submissionMarks.unreadCounts([form.id]);
    assert.equal(unread.get(form.id), 3, 'the three posted are unread');
    const secret = app.ctx.secret;
    await app.close();
    app = undefined;

    // the dry run changes nothing
    const env = cliEnv(source);
    const dry = await runMove(env, ['--to', target.url, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`submissions\\s+${BULK + 3}\\n`));
    assert.match(dry.stdout, /Left out .*\n {2}change_counts: /);
    assert.match(dry.stdout, /\n {2}unread_counts: /);
    assert.match(dry.stdout, /Dry run: nothing was changed/);
    assert.deepEqual(await tablesWithRows(target.url), []);

    const t0 = performance.now();
    const result = await runMove(env, ['--to', target.url, '--yes', '--json']);
    const ms = Math.round(performance.now() - t0);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const report = JSON.parse(result.stdout);
    process.stderr.write(
      `  moved ${report.rows} rows (${BULK + 3} submissions) in ${ms} ms end to end: copy ${report.copyMs} ms, verification ${report.verifyMs} ms\n`,
    );
    assert.equal(report.verified, true);
    assert.equal(report.sourceChanged, false);
    assert.deepEqual(report.start, { FORMGATE_DATABASE_URL: target.url, FORMGATE_FILES: path.join(source.dataDir, 'files') });
    assert.equal(report.plan.tables.find((t: { name: string }) => t.name === 'submissions').rows, BULK + 3);
    assert.ok(report.plan.skipped.some((t: { name: string }) => t.name === 'submissions_search'));
    const submissions = report.tables.find((t: { name: string }) => t.name === 'submissions');
    assert.deepEqual([submissions.sourceRows, submissions.targetRows, submissions.match], [BULK + 3, BULK + 3, true]);
    assert.ok(
      report.tables.every((t: { match: boolean; sourceRows: number }) => t.match),
      'every table matches',
    );
    for (const table of [
      'settings',
      'users',
      'sessions',
      'tokens',
      'workspaces',
      'forms',
      'form_secrets',
      'templates',
      'jobs',
      'job_attempts',
      'daily_counts',
    ]) {
      assert.ok(report.tables.find((t: { name: string; sourceRows: number }) => t.name === table)?.sourceRows > 0, `${table} was copied`);
    }

    // the same installation on PostgreSQL, with its delivery worker
    moved = await startApp({ allowPrivateWebhooks: 'true' }, { database: target, delivery: true });
    assert.equal(moved.ctx.secret, secret, 'the instance secret came along');
    await until(
      'the two pending webhooks are sent',
      async () =>
        (await moved!.ctx.database.db.selectFrom('jobs').select('id').where('status', '=', 'pending').execute()).length === 0 && receiver.requests.length >= 2,
    );
    const sent = receiver.requests.map((r) => r.headers['webhook-id']).sort();
    assert.deepEqual(sent, [posted[1], posted[2]].sort(), 'the pending ones once each, with their same ids; the delivered one not again');
    assert.equal(await moved.ctx.forms.webhookSecret(form.id), webhookSecret);
    assert.deepEqual(await moved.ctx.templates.getTemplate(account.userId, form.id, 'notification'), template);

    const samePage = await moved.api('GET', `/forms/${form.id}/submissions?limit=25&startingAfter=${firstPage.body.nextCursor}`, { token: account.token });
    assert.equal(samePage.status, 200, 'the token and a cursor taken before the move');
    assert.deepEqual(samePage.body, secondPage.body);
    const found = await moved.api('GET', `/workspaces/${account.workspaceId}/submissions?search=NEEDLE-in-the`, { token: account.token });
    assert.deepEqual(found.body, needle.body);
    assert.deepEqual(await quotaOn(moved), quota, 'the allowance used came along');
    assert.deepEqual(await moved.ctx.stats.formDays(account.userId, form.id), days);
    assert.deepEqual(await moved.ctx.submissionMarks.unreadCounts([form.id]), unread, "PostgreSQL's triggers counted the unread ones as they were copied");

    const session = new DashboardClient(moved);
    for (const [name, value] of dashboard.cookies) session.cookies.set(name, value);
    const home = await session.get('/');
    assert.equal(home.status, 303);
    assert.match(home.headers.get('location') ?? '', new RegExp(`/w/${account.workspaceId}$`), 'the dashboard cookie still logs in');

    // a new submission gets a new seq (the identity was set past the copied ones) and is sent once
    const fresh = await postJson(moved, form.id, { name: 'Katherine' }, from());
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    await until('the new webhook', () => receiver.requests.some((r) => r.headers['webhook-id'] === fresh.body.id));
    const again = await runMove(env, ['--to', target.url, '--yes']);
    assert.equal(again.code, 2, 'a second move into the now-used database is refused');
    assert.match(again.stderr, /is not empty: \d+ table\(s\) hold rows \(.*submissions.*\)/);
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;

describe('formgate move on a terminal', { skip: PG_ONLY || (!hasScript && 'needs util-linux `script` to give the command a terminal') }, () => {
  let source: TestDatabase;
  let target: TestDatabase;
  before(async () => {
    source = await createTestDatabase('sqlite');
    target = await createTestDatabase('postgres');
    assert.equal((await runCli(cliEnv(source), ['migrate'])).code, 0);
    assert.equal((await runCli(cliEnv(source), ['users', 'create', '--email', 'owner@example.com'])).code, 0);
  });
  after(async () => {
    await source?.drop();
    await target?.drop();
  });

  /** The move run in a pseudo-terminal (util-linux `script`), `typed` as the answer to its question. */
  function onTerminal(typed: string): { code: number | null; output: string } {
    const command = [process.execPath, ...FROM_SOURCE, 'move', '--to', target.url].map((a) => `'${a}'`).join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: PROJECT_ROOT,
      env: cliEnv(source),
      input: `${typed}\n`,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: run.status, output: run.stdout };
  }

  it('asks, copies nothing unless the answer is yes, and copies on yes', async () => {
    const declined = onTerminal('y');
    assert.equal(declined.code, 2, declined.output);
    assert.match(declined.output, /Copy \d+ row\(s\) into postgres:\/\/.*\? Formgate must be stopped meanwhile\. Type yes to go on:/);
    assert.match(declined.output, /move refused: not confirmed: nothing was copied/);
    assert.deepEqual(await tablesWithRows(target.url), []);

    const confirmed = onTerminal('yes');
    assert.equal(confirmed.code, 0, confirmed.output);
    assert.match(confirmed.output, /Every table verified/);
    assert.deepEqual(await tablesWithRows(target.url), ['audit_events', 'settings', 'users', 'workspace_members', 'workspaces']);
  });
});
