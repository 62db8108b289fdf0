import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { createMailer, outboxDir } from '../src/mail/transport.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

// The data folder holds the instance's secret, visitors' submissions and emails with reset links.
describe(`files Formgate creates are its user's alone, whatever the umask (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let umask: number;
  before(async () => {
    database = await createTestDatabase();
    // the most permissive umask: every bit left on a file or folder is one Formgate asked for
    umask = process.umask(0);
  });
  after(async () => {
    process.umask(umask);
    await database?.drop();
  });

  it('makes the data folder, the database and its WAL files, the outbox and each .eml file 0700 and 0600', async () => {
    // a data folder that is not there yet, two levels down, as on a first start
    const dataDir = path.join(database.dataDir, 'srv', 'formgate');
    const databaseUrl = TEST_DIALECT === 'sqlite' ? `sqlite:${path.join(dataDir, 'formgate.db')}` : database.url;
    const config = buildConfig({ databaseUrl, dataDir });
    const ctx = await openContext(config);
    try {
      const { user, workspace } = await ctx.users.createUser('modes@example.com');
      await ctx.forms.createForm(user.id, workspace.id, { name: 'Modes' });
      const mailer = createMailer(config);
      await mailer.send({ to: ['ann@example.com'], subject: 'Reset your password', text: 'https://example.test/reset/secret' });
      mailer.close();

      const expected: Record<string, string> = { [path.join(database.dataDir, 'srv')]: '700', [dataDir]: '700', [outboxDir(config)]: '700' };
      for (const name of fs.readdirSync(outboxDir(config))) expected[path.join(outboxDir(config), name)] = '600';
      assert.equal(fs.readdirSync(outboxDir(config)).length, 1, 'one message written');
      if (TEST_DIALECT === 'sqlite') {
        for (const suffix of ['', '-wal', '-shm']) expected[path.join(dataDir, `formgate.db${suffix}`)] = '600';
      }
      const actual = Object.fromEntries(Object.keys(expected).map((file) => [file, modeOf(file)]));
      assert.deepEqual(actual, expected);
      // nothing else was made in there with other permissions
      for (const entry of fs.readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
        const file = path.join(entry.parentPath, entry.name);
        assert.ok(expected[file], `${file} is expected`);
      }
    } finally {
      await ctx.close();
    }
  });

  it('leaves the mode of a data folder and database that are already there alone', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
    const dataDir = path.join(database.dataDir, 'existing');
    fs.mkdirSync(dataDir, { mode: 0o750 });
    const file = path.join(dataDir, 'formgate.db');
    fs.writeFileSync(file, '', { mode: 0o640 });
    const ctx = await openContext(buildConfig({ databaseUrl: `sqlite:${file}`, dataDir }));
    await ctx.close();
    assert.deepEqual([modeOf(dataDir), modeOf(file)], ['750', '640'], 'an operator chose these');
  });
});
