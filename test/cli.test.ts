import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext, type AppContext } from '../src/context.js';
import { ProblemError } from '../src/errors.js';
import { cliEnv, killRunningCli, runCli, type CliResult } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

/** The one JSON object a `--json` command printed: exactly one line on stdout. */
function onlyJson(result: CliResult): any {
  const lines = result.stdout.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `expected one line of JSON on stdout, got: ${result.stdout} (stderr: ${result.stderr})`);
  return JSON.parse(lines[0]!);
}

function assertOk(result: CliResult): void {
  assert.equal(result.code, 0, `expected exit 0, got ${result.code}; stdout: ${result.stdout}; stderr: ${result.stderr}`);
}

/** A failed `--json` command: exit code 1 and one `{ error: { code, message } }` object on stdout. */
function assertJsonError(result: CliResult, code: string, exitCode = 1): any {
  assert.equal(result.code, exitCode, `expected exit ${exitCode}, got ${result.code}; stdout: ${result.stdout}; stderr: ${result.stderr}`);
  const body = onlyJson(result);
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  return body.error;
}

async function assertInvalidToken(ctx: AppContext, secret: string): Promise<void> {
  await assert.rejects(ctx.tokens.authenticate(secret), (e: unknown) => e instanceof ProblemError && e.code === 'invalid_token');
}

describe('formgate admin commands', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  /** A context on the same database, to check what the commands wrote. */
  let ctx: AppContext;
  const ownerEmail = `owner-${process.pid}@example.com`;
  const memberEmail = `member-${process.pid}@example.com`;
  let owner: { userId: string; workspaceId: string };
  let member: { userId: string; workspaceId: string };
  let tokenSecret: string;

  before(async () => {
    database = await createTestDatabase();
    env = cliEnv(database);
    // Migrates the database before any command runs, so concurrent commands never race to create it.
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
  });
  after(async () => {
    killRunningCli();
    await ctx?.close();
    await database?.drop();
  });

  it('users create prints one JSON object with --json and readable lines without', async () => {
    const [json, text] = await Promise.all([
      runCli(env, ['users', 'create', '--email', `  ${ownerEmail.toUpperCase()} `, '--json']),
      runCli(env, ['users', 'create', '--email', memberEmail]),
    ]);

    assertOk(json);
    const body = onlyJson(json);
    assert.deepEqual(Object.keys(body).sort(), ['user', 'workspace']);
    assert.equal(body.user.email, ownerEmail);
    assert.match(body.user.id, /^[a-z2-7]{20}$/);
    assert.equal(body.workspace.plan, 'FREE');
    assert.equal(body.workspace.submissionsQuota, 250);
    assert.equal(typeof body.workspace.name, 'string');
    assert.match(body.workspace.id, /^[a-z2-7]{20}$/);
    assert.ok(!Number.isNaN(Date.parse(body.workspace.createdAt)));
    owner = { userId: body.user.id, workspaceId: body.workspace.id };

    const stored = await ctx.users.findByEmail(ownerEmail);
    assert.equal(stored?.id, owner.userId);
    const workspace = await ctx.workspaces.getForMember(owner.userId, owner.workspaceId);
    assert.equal(workspace.ownerId, owner.userId);

    assertOk(text);
    assert.equal(text.stdout.trim().startsWith('{'), false, 'text mode does not print JSON');
    const user = await ctx.users.findByEmail(memberEmail);
    assert.ok(user, 'the text-mode account exists');
    const memberWorkspace = await ctx.database.db.selectFrom('workspaces').selectAll().where('ownerId', '=', user.id).executeTakeFirstOrThrow();
    member = { userId: user.id, workspaceId: memberWorkspace.id };
    assert.ok(text.stdout.includes(memberEmail), text.stdout);
    assert.ok(text.stdout.includes(user.id), text.stdout);
    assert.ok(text.stdout.includes(memberWorkspace.id), text.stdout);
    assert.match(text.stdout, /FREE/);
  });

  it('users create refuses a taken address and an invalid one with exit code 1', async () => {
    const [dupText, dupJson, invalidJson] = await Promise.all([
      runCli(env, ['users', 'create', '--email', ownerEmail]),
      runCli(env, ['users', 'create', '--email', ownerEmail.toUpperCase(), '--json']),
      runCli(env, ['users', 'create', '--email', 'not-an-address', '--json']),
    ]);

    assert.equal(dupText.code, 1, dupText.stderr);
    assert.equal(dupText.stdout, '');
    assert.match(dupText.stderr, /already exists/);
    assert.ok(dupText.stderr.includes(ownerEmail), dupText.stderr);

    const conflict = assertJsonError(dupJson, 'conflict');
    assert.ok(conflict.message.includes(ownerEmail), conflict.message);

    const invalid = assertJsonError(invalidJson, 'validation_error');
    assert.ok(Array.isArray(invalid.errors), JSON.stringify(invalid));
    assert.ok(
      invalid.errors.some((e: string) => e.startsWith('email:') && e.includes('not-an-address')),
      JSON.stringify(invalid),
    );

    const { count } = await ctx.database.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count), 2, 'no account was added by the refused commands');
  });

  it('users create --password makes an account that can log in to the dashboard; the first account is the instance admin', async () => {
    const email = `login-${process.pid}@example.com`;
    assertOk(await runCli(env, ['users', 'create', '--email', email, '--password', 'a long passphrase', '--json']));
    const user = await ctx.users.authenticate(email, 'a long passphrase');
    assert.equal(user?.email, email, 'what the login page checks accepts it');
    assert.equal(await ctx.users.authenticate(email, 'another passphrase'), null);
    assert.equal(user?.isAdmin, 0, 'not the first account');
    const admins = await ctx.database.db.selectFrom('users').select('email').where('isAdmin', '=', 1).execute();
    assert.equal(admins.length, 1, 'exactly one instance admin');
    assert.ok([ownerEmail, memberEmail].includes(admins[0]!.email), 'one of the two accounts made first');
  });

  it('refuses to run on a database that is not there, naming it, and creates nothing', async () => {
    const emptyFolder = await createTestDatabase('sqlite');
    try {
      // no FORMGATE_DATABASE_URL: the default file in the data folder, as from another working folder
      const elsewhere: NodeJS.ProcessEnv = { ...env, FORMGATE_DATA_DIR: emptyFolder.dataDir };
      delete elsewhere.FORMGATE_DATABASE_URL;
      const [text, json] = await Promise.all([
        runCli(elsewhere, ['tokens', 'revoke', '--email', ownerEmail, '--name', 'laptop']),
        runCli(elsewhere, ['users', 'create', '--email', ownerEmail, '--json']),
      ]);
      const file = path.join(emptyFolder.dataDir, 'formgate.db');
      assert.equal(text.code, 2, text.stderr);
      assert.ok(text.stderr.includes(`sqlite:${file}`), `names the file it looked for: ${text.stderr}`);
      assert.match(text.stderr, /does not exist; admin commands do not create one/);
      assert.match(text.stderr, /set the database up first with `formgate migrate`/, 'names the command that makes it');
      const error = assertJsonError(json, 'config', 2);
      assert.ok(error.message.includes(`sqlite:${file}`), error.message);
      assert.deepEqual(fs.readdirSync(emptyFolder.dataDir), [], 'no database file, WAL or folder was made');

      const migrated = onlyJson(await runCli(elsewhere, ['migrate', '--json']));
      assert.deepEqual(migrated, { database: `sqlite:${file}`, migrated: true });
      assertOk(await runCli(elsewhere, ['users', 'create', '--email', ownerEmail, '--json']));
    } finally {
      await emptyFolder.drop();
    }
  });

  it('migrate creates a PostgreSQL database that is not there (a name that needs quoting), which admin commands refuse until then', async (t) => {
    if (TEST_DIALECT !== 'postgres') return t.skip('PostgreSQL: the SQLite file is covered above');
    const name = `formgate_test_${process.pid}_New-Db "x"`;
    const url = new URL(cliEnv(database).FORMGATE_DATABASE_URL!);
    url.pathname = `/${encodeURIComponent(name)}`;
    const missing = cliEnv(database, { FORMGATE_DATABASE_URL: url.toString() });
    const server = new pg.Client({ connectionString: cliEnv(database).FORMGATE_DATABASE_URL!.replace(/\/[^/]*$/, '/postgres') });
    await server.connect();
    try {
      const refused = assertJsonError(await runCli(missing, ['users', 'create', '--email', ownerEmail, '--json']), 'config', 2);
      assert.match(refused.message, /does not exist; admin commands do not create one/);
      assert.match(refused.message, /`formgate migrate`/);

      const migrated = await runCli(missing, ['migrate', '--json']);
      assert.deepEqual(onlyJson(migrated), { database: url.toString(), migrated: true });
      assert.ok(migrated.stderr.includes(`formgate: created the database ${name} on PostgreSQL`), migrated.stderr);
      assert.match(migrated.stderr, /migration 0001-initial ran/);
      const { rows } = await server.query('select 1 from pg_database where datname = $1', [name]);
      assert.equal(rows.length, 1, 'the database exists under its exact name');
      assertOk(await runCli(missing, ['users', 'create', '--email', ownerEmail, '--json']));
      assert.deepEqual(onlyJson(await runCli(missing, ['migrate', '--json'])), { database: url.toString(), migrated: true }, 'a second run finds it');
    } finally {
      await server.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
      await server.end();
    }
  });

  it('refuses a database that Formgate never set up, leaving it empty', async (t) => {
    if (TEST_DIALECT !== 'postgres') return t.skip('an empty PostgreSQL database: the SQLite case is the missing file above');
    const empty = await createTestDatabase();
    try {
      const result = await runCli(cliEnv(empty), ['users', 'create', '--email', ownerEmail, '--json']);
      const error = assertJsonError(result, 'config', 2);
      assert.match(error.message, /holds no Formgate data/);
      const client = new pg.Client({ connectionString: empty.url });
      await client.connect();
      const { rows } = await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'");
      await client.end();
      assert.equal(rows[0].n, 0, 'no table was created');
    } finally {
      await empty.drop();
    }
  });

  it('names the database it looked at when it refuses', async () => {
    const error = assertJsonError(await runCli(env, ['tokens', 'revoke', '--email', 'nobody@example.com', '--name', 'x', '--json']), 'not_found');
    assert.ok(error.message.includes('(database: '), error.message);
    assert.ok(
      error.message.includes(database.url.startsWith('sqlite:') ? database.url.slice('sqlite:'.length) : new URL(database.url).pathname),
      error.message,
    );
  });

  it('tokens create prints an fg_ token once; only its SHA-256 hash is stored, and it authenticates', async () => {
    const json = await runCli(env, ['tokens', 'create', '--email', ownerEmail, '--name', 'ci', '--scopes', 'forms:read,forms:write', '--json']);

    assertOk(json);
    const body = onlyJson(json);
    assert.equal(typeof body.token, 'string');
    assert.match(body.token, /^fg_[\w-]{20,}$/);
    assert.equal(body.name, 'ci');
    assert.deepEqual(body.scopes, ['forms:read', 'forms:write']);
    assert.equal(body.expiresAt, null);
    tokenSecret = body.token;

    const rows = await ctx.database.db.selectFrom('tokens').selectAll().execute();
    assert.deepEqual(
      rows.map((r) => [r.userId, r.name]),
      [[owner.userId, 'ci']],
    );
    assert.ok(!JSON.stringify(rows).includes(tokenSecret), 'the secret is stored nowhere in the tokens table');
    assert.ok(!JSON.stringify(rows).includes(tokenSecret.slice(3)), 'not even without its prefix');
    assert.equal(rows[0]!.tokenHash, createHash('sha256').update(tokenSecret).digest('hex'));

    const principal = await ctx.tokens.authenticate(tokenSecret);
    assert.equal(principal.userId, owner.userId);
    assert.deepEqual([...principal.scopes].sort(), ['forms:read', 'forms:write']);
    assert.equal(principal.token.expiresAt, null);

    // the account is told, by an email queued with the token
    const mails = await ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    const told = mails.map((m) => (typeof m.payload === 'string' ? JSON.parse(m.payload) : m.payload)).find((p) => /API token “ci”/.test(p.subject));
    assert.ok(told, 'an email about the new token is queued');
    assert.deepEqual(told.to, [ownerEmail]);
    assert.match(told.text, /on the server’s command line \(formgate tokens create\)/);
  });

  it('tokens create refuses an unknown scope and a past or malformed expiry, naming each problem', async () => {
    const base = ['tokens', 'create', '--email', ownerEmail, '--name', 'other'];
    const [badScopeAndPast, notDate] = await Promise.all([
      runCli(env, [...base, '--scopes', 'forms:read,forms:destroy', '--expires-at', '2001-01-01T00:00:00Z', '--json']),
      runCli(env, [...base, '--scopes', 'forms:read', '--expires-at', 'next tuesday', '--json']),
    ]);

    const both = assertJsonError(badScopeAndPast, 'validation_error');
    assert.ok(
      both.errors.some((e: string) => e.startsWith('scopes:') && e.includes('forms:destroy')),
      JSON.stringify(both),
    );
    assert.ok(!both.errors.some((e: string) => e.includes('"forms:read"')), 'the valid scope is not blamed');
    assert.ok(
      both.errors.some((e: string) => /^expires/i.test(e) && /future/.test(e)),
      JSON.stringify(both),
    );

    const malformed = assertJsonError(notDate, 'validation_error');
    assert.ok(
      malformed.errors.some((e: string) => /expires/i.test(e) && e.includes('next tuesday')),
      JSON.stringify(malformed),
    );

    const rows = await ctx.database.db.selectFrom('tokens').select('name').execute();
    assert.deepEqual(
      rows.map((r) => r.name),
      ['ci'],
      'no token was created by the refused commands',
    );
  });

  it('tokens revoke stops the token at once; an unknown name is not_found', async () => {
    const { secret: other } = await ctx.tokens.createToken(owner.userId, { name: 'deploy', scopes: ['forms:read'] });
    const [revoked, unknown] = await Promise.all([
      runCli(env, ['tokens', 'revoke', '--email', ownerEmail, '--name', 'ci', '--json']),
      runCli(env, ['tokens', 'revoke', '--email', ownerEmail, '--name', 'no-such-token', '--json']),
    ]);
    assertOk(revoked);
    const body = onlyJson(revoked);
    assert.equal(body.revoked, true);
    assert.equal(body.name, 'ci');
    assert.ok(!JSON.stringify(body).includes(tokenSecret), 'revoking does not print the secret');
    await assertInvalidToken(ctx, tokenSecret);

    const notFound = assertJsonError(unknown, 'not_found');
    assert.ok(notFound.message.includes('no-such-token'), notFound.message);

    // the other token of the account is untouched
    assert.equal((await ctx.tokens.authenticate(other)).token.name, 'deploy');
  });

  it('workspaces set-plan changes the plan; a bad plan lists the plans; an unknown workspace is not_found', async () => {
    const [upgraded, badPlan, unknown] = await Promise.all([
      runCli(env, ['workspaces', 'set-plan', '--workspace', owner.workspaceId, '--plan', 'BUNDLE_50000', '--json']),
      runCli(env, ['workspaces', 'set-plan', '--workspace', member.workspaceId, '--plan', 'GOLD', '--json']),
      runCli(env, ['workspaces', 'set-plan', '--workspace', 'nosuchworkspace', '--plan', 'DEALIFY', '--json']),
    ]);

    assertOk(upgraded);
    const body = onlyJson(upgraded);
    assert.equal(body.workspace.id, owner.workspaceId);
    assert.equal(body.workspace.plan, 'BUNDLE_50000');
    assert.equal(body.workspace.submissionsQuota, 50_000);
    assert.equal((await ctx.workspaces.requireById(owner.workspaceId)).plan, 'BUNDLE_50000');

    const invalid = assertJsonError(badPlan, 'validation_error');
    const listed = invalid.errors.join(' ');
    for (const plan of ['FREE', 'BUNDLE_50000', 'DEALIFY']) assert.ok(listed.includes(plan), `lists ${plan}: ${listed}`);
    assert.ok(listed.includes('GOLD'), listed);
    assert.equal((await ctx.workspaces.requireById(member.workspaceId)).plan, 'FREE');

    const notFound = assertJsonError(unknown, 'not_found');
    assert.ok(notFound.message.includes('nosuchworkspace'), notFound.message);

    // the owner is told by email, in the change's transaction; a refused change tells no one
    const planEmails = async () =>
      (await ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute())
        .map((j) => (typeof j.payload === 'string' ? JSON.parse(j.payload) : j.payload))
        .filter((p) => /plan/.test(p.subject));
    const told = await planEmails();
    assert.deepEqual(
      told.map((p) => [p.to, p.subject]),
      [[[ownerEmail], `Workspace "${body.workspace.name}" is now on the Upgraded (50,000 submissions) plan`]],
    );
    assert.match(told[0].text, new RegExp(`changed from Free to Upgraded \\(50,000 submissions\\)[\\s\\S]*${owner.workspaceId}`));
    // the same plan again changes nothing, and tells no one
    assertOk(await runCli(env, ['workspaces', 'set-plan', '--workspace', owner.workspaceId, '--plan', 'BUNDLE_50000', '--json']));
    assert.equal((await planEmails()).length, 1);
  });

  it('workspaces add-member adds an account to the team once', async () => {
    const added = await runCli(env, ['workspaces', 'add-member', '--workspace', owner.workspaceId, '--email', memberEmail, '--json']);
    assertOk(added);
    const body = onlyJson(added);
    assert.equal(body.workspaceId, owner.workspaceId);
    assert.equal(body.userId, member.userId);
    const workspace = await ctx.workspaces.getForMember(member.userId, owner.workspaceId);
    assert.equal(workspace.id, owner.workspaceId);

    const again = await runCli(env, ['workspaces', 'add-member', '--workspace', owner.workspaceId, '--email', memberEmail, '--json']);
    const conflict = assertJsonError(again, 'conflict');
    assert.ok(conflict.message.includes(memberEmail), conflict.message);
    const members = await ctx.database.db.selectFrom('workspaceMembers').selectAll().where('workspaceId', '=', owner.workspaceId).execute();
    assert.deepEqual(members.map((m) => m.userId).sort(), [owner.userId, member.userId].sort());
  });

  it('forms set-secret stores a provider secret; a bad provider and an unknown form are refused', async () => {
    const form = await ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'x' });
    const [stored, badProvider, unknownForm] = await Promise.all([
      runCli(env, ['forms', 'set-secret', '--form', form.id, '--provider', 'TURNSTILE', '--secret', 'turnstile-secret-1', '--json']),
      runCli(env, ['forms', 'set-secret', '--form', form.id, '--provider', 'RECAPTCHA_V9', '--secret', 's', '--json']),
      runCli(env, ['forms', 'set-secret', '--form', 'nosuchform', '--provider', 'SLACK', '--secret', 's', '--json']),
    ]);

    assertOk(stored);
    assert.deepEqual(onlyJson(stored), { formId: form.id, provider: 'TURNSTILE', stored: true });
    const secrets = await ctx.database.db.selectFrom('formSecrets').selectAll().where('formId', '=', form.id).execute();
    assert.deepEqual(
      secrets.map((s) => [s.provider, s.secret]),
      [['TURNSTILE', 'turnstile-secret-1']],
    );

    const invalid = assertJsonError(badProvider, 'validation_error');
    const listed = invalid.errors.join(' ');
    assert.ok(listed.includes('RECAPTCHA_V9'), listed);
    for (const provider of ['BOTPOISON', 'GOOGLE_RECAPTCHA_V2', 'HCAPTCHA', 'TURNSTILE', 'SLACK']) assert.ok(listed.includes(provider), listed);

    const notFound = assertJsonError(unknownForm, 'not_found');
    assert.ok(notFound.message.includes('nosuchform'), notFound.message);
    const count = await ctx.database.db.selectFrom('formSecrets').select('formId').execute();
    assert.equal(count.length, 1);
  });

  it('answers usage errors with exit code 2 and a usage message, and --help with 0', async () => {
    const [missing, unknownCommand, help] = await Promise.all([runCli(env, ['users', 'create']), runCli(env, ['frobnicate']), runCli(env, ['--help'])]);

    assert.equal(missing.code, 2, missing.stderr);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /required option '--email <email>' not specified/);
    assert.match(missing.stderr, /--help/);

    assert.equal(unknownCommand.code, 2, unknownCommand.stderr);
    assert.match(unknownCommand.stderr, /unknown command 'frobnicate'/);

    assert.equal(help.code, 0, help.stderr);
    for (const command of ['serve', 'users', 'tokens', 'workspaces', 'forms']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
  });
});
