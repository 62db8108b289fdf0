import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { Database } from '../src/db/database.js';
import { insertRows } from '../src/db/insert-rows.js';
import { idAt } from '../src/ids.js';
import { searchTextOf } from '../src/services/search-text.js';
import type { Answer } from './helpers/app.js';
import { startApp, type TestApp } from './helpers/app.js';
import { buildProgram, type BuiltProgram } from './helpers/built-program.js';
import {
  cliEnv,
  MANY_VISITORS_FROM_ONE_ADDRESS,
  killRunningCli,
  type LogLine,
  runCli,
  type ServerProcess,
  seedUpgradedForm,
  spawnServe,
} from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { until } from './helpers/eventually.js';
import { SteadyStream } from './helpers/steady-stream.js';

// Issue 38 item 14: `formgate import` into SQLite failed with "database is locked" after 100 to 2,300
// rows while `formgate serve` took submissions, though the docs say serve may run meanwhile. A real
// server takes a steady stream of posts while a real import writes 6,000 submissions into the same
// database: every row arrives, every post is answered, and nobody is told the database is locked.
const SUBMISSIONS = 6_000;
const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');

describe(`formgate import while formgate serve takes submissions (${TEST_DIALECT})`, () => {
  let program: BuiltProgram;
  let source: TestApp;
  let target: TestDatabase;
  let server: ServerProcess | undefined;
  let token: string;
  let sourceForm: string;

  before(async () => {
    [program, source, target] = await Promise.all([buildProgram(), startApp(), createTestDatabase()]);
    const { user, workspace } = await source.ctx.users.createUser('source@example.com');
    await source.ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    sourceForm = (await source.ctx.forms.createForm(user.id, workspace.id, { name: 'Contact' })).id;
    ({ secret: token } = await source.ctx.tokens.createToken(user.id, { name: 'export', scopes: ['workspaces:read', 'forms:read', 'submissions:read'] }));
    const from = Date.now() - 30 * 86_400_000;
    const rows = Array.from({ length: SUBMISSIONS }, (_, i) => {
      const createdAt = from + i * 1_000;
      const data = { name: `Person ${i}`, email: `person${i}@example.com`, message: `hello ${i}` };
      return {
        id: idAt(createdAt),
        formId: sourceForm,
        workspaceId: workspace.id,
        data: JSON.stringify(data),
        status: 'accepted' as const,
        searchText: searchTextOf(data),
        emailControls: null,
        spamReasons: null,
        createdAt,
      };
    });
    const columns = ['id', 'formId', 'workspaceId', 'data', 'status', 'searchText', 'emailControls', 'spamReasons', 'createdAt'] as const;
    await source.ctx.database.transaction((trx) => insertRows(trx, 'submissions', columns, rows));
  });
  after(async () => {
    killRunningCli();
    server?.kill();
    await server?.waitForExit(5_000).catch(() => undefined);
    await source?.close();
    await target?.drop();
    program?.remove();
  });

  it('imports every row while the server answers every post, with no "database is locked"', { timeout: 180_000 }, async (t) => {
    const { formId } = await seedUpgradedForm(target, { email: 'owner@example.com', formName: 'Live' });
    server = spawnServe(
      cliEnv(target, {
        FORMGATE_HOST: '127.0.0.1',
        FORMGATE_PORT: '0',
        FORMGATE_SUBMIT_PORT: '0',
        ...MANY_VISITORS_FROM_ONE_ADDRESS,
      }),
      program.program,
    );
    const submitUrl = (await server.waitForLine(READY, 'the ready line', 30_000)).json!.submitUrl as string;
    const send = async (n: number): Promise<Answer> => {
      const response = await fetch(`${submitUrl}/${formId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ref: `live${n}` }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    };
    const stream = new SteadyStream(send, { everyMs: 5, max: 20_000 });
    stream.phase = 'importing';
    stream.start();
    await until('the stream under way', () => stream.acknowledged().length >= 20, 20_000);

    const imported = await runCli(
      cliEnv(target),
      ['import', '--from', source.baseUrl, '--token', token, '--owner', 'owner@example.com', '--json'],
      program.program,
    );
    const posted = stream.acknowledged().length;
    await stream.stop();
    t.diagnostic(`posts answered while importing: ${posted}`);
    assert.doesNotMatch(imported.stderr + imported.stdout, /database is locked|SQLITE_BUSY/i);
    assert.equal(imported.code, 0, imported.stderr + imported.stdout);
    const summary = JSON.parse(imported.stdout);
    assert.equal(summary.stopped, undefined);
    assert.equal(summary.submissions.created, SUBMISSIONS);
    stream.assertAnsweredCleanly();
    assert.ok(posted > 20, 'the server took posts while the import ran');

    const db = Database.open(buildConfig({ databaseUrl: target.url, dataDir: target.dataDir }).database, { mustExist: true });
    try {
      const row = await db.db
        .selectFrom('submissions')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('formId', '=', sourceForm)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.n), SUBMISSIONS, 'every imported row is there');
    } finally {
      await db.destroy();
    }
    assert.doesNotMatch(server.stderr(), /database is locked|SQLITE_BUSY/i);
  });
});
