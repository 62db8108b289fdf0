// A misspelt FORMGATE_* variable stops `formgate serve` and the admin commands (exit 2) with the
// name meant, and SQLite with Redis is warned about: with FORMGATE_DATABSE_URL, an instance had
// started on a new ./data/formgate.db and taken half the submissions behind a load balancer
// (issue 38, item 19).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliEnv, runCli, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

const LISTEN = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' };
const REFUSAL = /FORMGATE_DATABSE_URL is not a variable Formgate reads: did you mean FORMGATE_DATABASE_URL\? Formgate does not start with a misspelt variable/;

describe(`misspelt variables (${TEST_DIALECT})`, () => {
  const databases: TestDatabase[] = [];
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) server.kill();
    for (const database of databases) await database.drop();
  });
  async function database(): Promise<TestDatabase> {
    const made = await createTestDatabase();
    databases.push(made);
    return made;
  }

  it('serve exits 2 naming the variable meant, and makes no database of its own in the working folder', async () => {
    const db = await database();
    // the variable the operator meant is missing: only the misspelt one is set
    const env = cliEnv(db, { ...LISTEN, FORMGATE_DATABSE_URL: db.url, FORMGATE_REDIS_URL: 'redis://127.0.0.1:6379' });
    delete env.FORMGATE_DATABASE_URL;
    const folder = fs.mkdtempSync(path.join(db.dataDir, 'elsewhere-'));
    const server = spawnServe({ ...env, FORMGATE_DATA_DIR: path.join(folder, 'data') });
    servers.push(server);
    assert.deepEqual(await server.waitForExit(), { code: 2, signal: null });
    // stdout is not a terminal, so the logs are JSON, and so is the one line saying why it stopped (issue 38, item 23)
    assert.equal(server.lines.length, 1, server.lines.map((l) => l.raw).join('\n'));
    const fatal = server.lines[0]!.json!;
    assert.deepEqual(
      { level: fatal.level, code: fatal.code, exitCode: fatal.exitCode, pid: fatal.pid },
      { level: 60, code: 'config', exitCode: 2, pid: server.child.pid },
    );
    assert.equal(typeof fatal.time, 'number');
    assert.match(fatal.msg, REFUSAL);
    assert.equal(server.stderr(), '', 'nothing in plain text');
    assert.equal(fs.existsSync(path.join(folder, 'data')), false, 'no new data folder');
  });

  it('with FORMGATE_LOG_FORMAT=pretty, the reason serve stopped is text on stderr', async () => {
    const db = await database();
    const server = spawnServe(cliEnv(db, { ...LISTEN, FORMGATE_LOG_FORMAT: 'pretty', FORMGATE_DATABSE_URL: db.url }));
    servers.push(server);
    assert.deepEqual(await server.waitForExit(), { code: 2, signal: null });
    assert.deepEqual(server.lines, []);
    assert.match(server.stderr(), new RegExp(`^formgate: ${REFUSAL.source}`));
  });

  it('so do the admin commands, as one JSON error with --json', async () => {
    const db = await database();
    const text = await runCli(cliEnv(db, { FORMGATE_SECERT: 'x'.repeat(40) }), ['migrate']);
    assert.equal(text.code, 2, text.stderr);
    assert.match(text.stderr, /^formgate: FORMGATE_SECERT is not a variable Formgate reads: did you mean FORMGATE_SECRET\?/);
    const json = await runCli(cliEnv(db, { FORMGATE_DATABSE_URL: db.url }), ['users', 'create', '--email', 'a@example.com', '--json']);
    assert.equal(json.code, 2, json.stderr);
    const error = JSON.parse(json.stdout).error;
    assert.equal(error.code, 'config');
    assert.match(error.message, REFUSAL);
  });

  it('a variable far from any Formgate reads is still only a warning', async () => {
    const db = await database();
    const result = await runCli(cliEnv(db, { FORMGATE_SMTP_URL_TLS: 'on' }), ['migrate', '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /formgate: warning: FORMGATE_SMTP_URL_TLS is not a variable Formgate reads, so it has no effect: did you mean FORMGATE_SMTP_URL\?/,
    );
  });

  it('warns at start when Redis is set, as for several instances, on an SQLite database', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
    const db = await database();
    const server = spawnServe(cliEnv(db, { ...LISTEN, FORMGATE_REDIS_URL: 'redis://127.0.0.1:6379', FORMGATE_REDIS_PREFIX: `misspelt-${process.pid}:` }));
    servers.push(server);
    await server.waitForLine((line) => /^Formgate is ready/.test(line.json?.msg ?? ''), 'the ready line');
    const warning = server.lines.find((line) => /^FORMGATE_REDIS_URL is set/.test(line.json?.msg ?? ''));
    assert.ok(warning, server.lines.map((l) => l.raw).join('\n'));
    assert.equal(warning.json!.level, 40);
    assert.match(warning.json!.msg, new RegExp(`the SQLite file ${path.join(db.dataDir, 'formgate.db').replaceAll('.', '\\.')}: SQLite serves one instance`));
    assert.match(warning.json!.msg, /Several instances need PostgreSQL/);
    server.child.kill('SIGTERM');
    assert.equal((await server.waitForExit()).code, 0, server.stderr());
  });
});
