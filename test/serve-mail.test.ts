import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, spawnServe, type LogLine, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
const UNSENT = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('FORMGATE_SMTP_URL is not set');

/** Starts `formgate serve`, waits for its ready line, stops it; returns every line it printed. */
async function linesOfAStart(env: NodeJS.ProcessEnv, servers: ServerProcess[]): Promise<LogLine[]> {
  const server = spawnServe(env);
  servers.push(server);
  await server.waitForLine(READY, 'the "Formgate is ready" line');
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
  return server.lines;
}

describe(`formgate serve says how mail leaves (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  const servers: ServerProcess[] = [];
  const base = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' };

  before(async () => {
    database = await createTestDatabase();
    sink = await startSmtpSink();
  });
  after(async () => {
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await sink?.close();
    await database?.drop();
  });

  it('without FORMGATE_SMTP_URL: mail "files" on the ready line, and a warning naming the outbox beside the database and the variable', async () => {
    // a data folder elsewhere: on SQLite the outbox follows the database file, not FORMGATE_DATA_DIR
    const dataDir = path.join(database.dataDir, 'elsewhere');
    fs.mkdirSync(dataDir);
    const lines = await linesOfAStart(cliEnv(database, { ...base, FORMGATE_DATA_DIR: dataDir }), servers);
    const outbox = TEST_DIALECT === 'sqlite' ? path.join(database.dataDir, 'outbox') : path.join(dataDir, 'outbox');
    const ready = lines.find(READY)!.json!;
    assert.equal(ready.mail, 'files');
    assert.equal(ready.outbox, outbox);
    const warnings = lines.filter(UNSENT);
    assert.equal(warnings.length, 1, 'warned once');
    const warning = warnings[0]!.json!;
    assert.equal(warning.level, 40, 'at warn level');
    assert.ok(warning.msg.includes(outbox) && warning.msg.includes('FORMGATE_SMTP_URL'), warning.msg);
  });

  it('with FORMGATE_SMTP_URL: mail "smtp" on the ready line, and no warning', async () => {
    const lines = await linesOfAStart(cliEnv(database, { ...base, FORMGATE_SMTP_URL: sink.url }), servers);
    const ready = lines.find(READY)!.json!;
    assert.equal(ready.mail, 'smtp');
    assert.equal(ready.outbox, undefined);
    assert.equal(lines.filter(UNSENT).length, 0);
  });
});
