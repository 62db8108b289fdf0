import manifest from '../package.json' with { type: 'json' };
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BuiltProgram, buildProgram } from './helpers/built-program.js';
import { cliEnv, killRunningCli, runCli, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';

// The rest of the suite runs src/ through tsx; `formgate` as installed runs the bundle that
// scripts/build.mjs makes. This builds one (inside node_modules, so that its packages resolve)
// and takes it through a submission's whole path.

describe(`the bundled formgate program (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: ServerProcess | undefined;
  let bundle: BuiltProgram | undefined;
  let program: string[] = [];

  before(async () => {
    bundle = await buildProgram();
    program = bundle.program;
    database = await createTestDatabase();
    sink = await startSmtpSink();
  });
  after(async () => {
    killRunningCli();
    server?.kill();
    await server?.waitForExit(5_000).catch(() => undefined);
    await sink?.close();
    await database?.drop();
    bundle?.remove();
  });

  it('is ASCII alone, so that V8 holds its source in one byte a character (issue 44: a single … doubled it to 15 MB)', () => {
    for (const file of ['program.js', 'template-worker.js']) {
      const source = fs.readFileSync(path.join(path.dirname(program[0]!), file), 'latin1');
      assert.ok(source.length > 10_000, `${file} was built`);
      assert.equal(/[\u0080-\uffff]/.exec(source)?.index, undefined, `${file} holds a character past ASCII`);
    }
  });

  it('runs admin commands, serves, stores and lists a submission, emails it from a template, and stops', async () => {
    const env = cliEnv(database, {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_SMTP_URL: sink.url,
      FORMGATE_MAIL_FROM: 'forms@example.test',
    });
    const json = async (args: string[]) => {
      const result = await runCli(env, [...args, '--json'], program);
      assert.equal(result.code, 0, `formgate ${args.join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    assert.equal((await json(['migrate'])).migrated, true);
    // the version is bundled from package.json: the program never reads it at run time
    const version = await runCli(env, ['--version'], program);
    assert.deepEqual({ code: version.code, stdout: version.stdout }, { code: 0, stdout: `${manifest.version}\n` });
    const { workspace } = await json(['users', 'create', '--email', 'bundle@example.com']);
    await json(['workspaces', 'set-plan', '--workspace', workspace.id, '--plan', 'BUNDLE_50000']);
    const { token } = await json(['tokens', 'create', '--email', 'bundle@example.com', '--name', 'bundle', '--scopes', 'forms:write,submissions:read']);

    server = spawnServe(env, program);
    const ready = await server.waitForLine((line) => String(line.json?.msg ?? '').startsWith('Formgate is ready'), 'the ready line');
    const { baseUrl, submitUrl } = ready.json!;
    assert.equal(ready.json!.version, manifest.version);
    const api = async (method: string, url: string, body?: unknown) => {
      const answer = await fetch(`${baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: answer.status, body: (await answer.json()) as any };
    };

    const form = await api('POST', '/forms', { workspaceId: workspace.id, name: 'Bundle', notificationEmails: ['owner@example.com'] });
    assert.equal(form.status, 201, JSON.stringify(form.body));
    const template = await api('PUT', `/forms/${form.body.id}/templates/notification`, { code: '<p>{{data.name}} wrote: {{data.message}}</p>' });
    assert.equal(template.status, 200, JSON.stringify(template.body));

    const submitted = await fetch(`${submitUrl}/${form.body.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{"name":"Ada","message":"Hello from the bundle","order":12345678901234567890}',
    });
    assert.equal(submitted.status, 200, await submitted.clone().text());
    const { id } = (await submitted.json()) as { id: string };

    const listed = await api('GET', `/forms/${form.body.id}/submissions?search=bundle`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.data.map((submission: any) => [submission.id, submission.data.order]),
      [[id, '12345678901234567890']],
    );
    // the notification, the email that told the owner of the plan change made by set-plan, and the
    // one that told them a token was made (tokens create)
    const mails = await sink.waitFor(3);
    const mail = mails.find((m) => m.envelopeTo.includes('owner@example.com'));
    assert.match(String(mail?.parsed.html), /<p>Ada wrote: Hello from the bundle<\/p>/);
    const planMail = mails.find((m) => m.envelopeTo.includes('bundle@example.com') && /plan/.test(m.parsed.subject ?? ''));
    assert.match(planMail?.parsed.subject ?? '', /is now on the Upgraded \(50,000 submissions\) plan/);
    assert.ok(
      mails.some((m) => m.envelopeTo.includes('bundle@example.com') && /token/i.test(m.parsed.subject ?? '')),
      'the account is told of the token made on the command line',
    );

    assert.ok(server.child.kill('SIGTERM'));
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
    assert.equal(server.stderr(), '');
    assert.ok(!server.lines.some((line) => (line.json?.level ?? 0) >= 50), 'no error logged');
  });
});
