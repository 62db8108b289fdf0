// `formgate serve` warns at start when open sign-up meets settings that trust every account (issue 38, item 9).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { cliEnv, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

const LISTEN = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_SIGNUP: 'open', FORMGATE_CONFIRM_RECIPIENTS: 'on' };

describe(`formgate serve with open sign-up (${TEST_DIALECT})`, () => {
  const databases: TestDatabase[] = [];
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) server.kill();
    for (const database of databases) await database.drop();
  });

  /** Starts serve on a fresh installation used as `usage`, stops it once ready, and gives its log lines. */
  async function startLines(extra: Record<string, string>, usage: 'team' | 'hosting'): Promise<{ msg: string; level: number }[]> {
    const database = await createTestDatabase();
    databases.push(database);
    const ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
    try {
      await ctx.instance.setUsage(usage);
    } finally {
      await ctx.close();
    }
    const server = spawnServe(cliEnv(database, { ...LISTEN, ...extra }));
    servers.push(server);
    await server.waitForLine((line) => /^Formgate is ready/.test(line.json?.msg ?? ''), 'the ready line');
    server.child.kill('SIGTERM');
    await server.waitForExit();
    return server.lines.filter((line) => line.json !== null).map((line) => ({ msg: String(line.json!.msg), level: Number(line.json!.level) }));
  }

  it('warns of team mode, at warn level, and says nothing of it in hosting mode', async () => {
    const team = await startLines({}, 'team');
    const warning = team.find((line) => line.msg.startsWith('FORMGATE_SIGNUP=open lets anyone who receives mail make an account here'));
    assert.ok(warning, team.map((l) => l.msg).join('\n'));
    assert.equal(warning.level, 40);
    const hosting = await startLines({}, 'hosting');
    assert.ok(!hosting.some((line) => line.msg.startsWith('FORMGATE_SIGNUP=open')), 'hosting with FREE workspaces needs no warning');
  });

  it('warns of a paid FORMGATE_DEFAULT_PLAN', async () => {
    const lines = await startLines({ FORMGATE_DEFAULT_PLAN: 'BUNDLE_50000' }, 'hosting');
    assert.ok(lines.some((line) => line.level === 40 && line.msg.startsWith('FORMGATE_SIGNUP=open with FORMGATE_DEFAULT_PLAN=BUNDLE_50000')));
  });
});
