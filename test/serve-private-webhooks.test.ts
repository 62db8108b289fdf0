// `formgate serve` warns at start, and /metrics says it, when FORMGATE_ALLOW_PRIVATE_WEBHOOKS (tests
// only) turns the address checks of webhooks and chat channels off (issue 39, item 5).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cliEnv, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

const LISTEN = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_METRICS: 'on' };

describe(`formgate serve with FORMGATE_ALLOW_PRIVATE_WEBHOOKS (${TEST_DIALECT})`, () => {
  const databases: TestDatabase[] = [];
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const server of servers) server.kill();
    for (const database of databases) await database.drop();
  });

  /** Starts serve, reads its warnings and its gauge, and stops it. */
  async function startWith(extra: Record<string, string>): Promise<{ warnings: string[]; gauge: string | undefined }> {
    const database = await createTestDatabase();
    databases.push(database);
    const server = spawnServe(cliEnv(database, { ...LISTEN, ...extra }));
    servers.push(server);
    const ready = await server.waitForLine((line) => /^Formgate is ready/.test(line.json?.msg ?? ''), 'the ready line');
    const metrics = await (await fetch(`${ready.json!.dashboardUrl}/metrics`)).text();
    server.child.kill('SIGTERM');
    await server.waitForExit();
    const warnings = server.lines.filter((line) => line.json?.level === 40).map((line) => String(line.json!.msg));
    return { warnings, gauge: /^formgate_address_checks_off (\d)$/m.exec(metrics)?.[1] };
  }

  it('warns at warn level and sets formgate_address_checks_off to 1; neither without it', async () => {
    const open = await startWith({ FORMGATE_ALLOW_PRIVATE_WEBHOOKS: '1' });
    assert.ok(
      open.warnings.some((msg) => msg.startsWith('FORMGATE_ALLOW_PRIVATE_WEBHOOKS is on: webhooks and chat channels may reach ANY address')),
      open.warnings.join('\n'),
    );
    assert.equal(open.gauge, '1');
    const guarded = await startWith({});
    assert.ok(!guarded.warnings.some((msg) => msg.startsWith('FORMGATE_ALLOW_PRIVATE_WEBHOOKS')), guarded.warnings.join('\n'));
    assert.equal(guarded.gauge, '0');
  });
});
