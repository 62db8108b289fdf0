// Audit events go after FORMGATE_AUDIT_RETENTION_DAYS, a batch at a time; `forever` keeps them.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { buildConfig } from '../../src/config/config.js';
import { openContext, type AppContext } from '../../src/context.js';
import { idAt } from '../../src/ids.js';
import { purgeAuditEvents, startAuditPurge } from '../../src/jobs/audit-purge.js';
import { until } from '../helpers/eventually.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);

describe(`the audit event purge (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let ctx: AppContext;

  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(testConfig(database, { auditRetentionDays: '30' }));
  });
  after(async () => {
    await ctx?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await ctx.database.db.deleteFrom('auditEvents').execute();
  });

  /** `count` events recorded `ageDays` before NOW. */
  async function events(ageDays: number, count = 1): Promise<void> {
    const at = NOW - ageDays * DAY;
    const rows = Array.from({ length: count }, (_, i) => ({ id: idAt(at + i), at: at + i, via: 'system' as const, action: 'form.updated', workspaceId: 'w1' }));
    await ctx.database.db.insertInto('auditEvents').values(rows).execute();
  }
  const ages = async () =>
    (await ctx.database.db.selectFrom('auditEvents').select('at').orderBy('at').execute()).map((r) => Math.round((NOW - Number(r.at)) / DAY));

  it('removes the events past the retention and keeps the others', async () => {
    await events(400);
    await events(31, 3);
    await events(29);
    await events(0);
    assert.deepEqual(await purgeAuditEvents(ctx, NOW), { events: 4, more: false });
    assert.deepEqual(await ages(), [29, 0]);
    assert.deepEqual(await purgeAuditEvents(ctx, NOW), { events: 0, more: false }, 'a second run finds nothing');
  });

  it('goes a batch at a time and stops at its cap, leaving the rest for the next run', async () => {
    await events(90, 25);
    await events(1, 2);
    assert.deepEqual(await purgeAuditEvents(ctx, NOW, { batchSize: 10, maxBatches: 2 }), { events: 20, more: true });
    assert.equal((await ages()).length, 7);
    assert.deepEqual(await purgeAuditEvents(ctx, NOW, { batchSize: 10, maxBatches: 2 }), { events: 5, more: false });
    assert.deepEqual(await ages(), [1, 1]);
  });

  it('runs at start in `serve` and logs what it removed', async () => {
    await events(31, 2);
    const { logger, lines } = collectingLogger();
    const stop = startAuditPurge(ctx, logger);
    try {
      await until('the purge’s log line', () => lines.some((line) => line.msg === 'removed audit events past FORMGATE_AUDIT_RETENTION_DAYS'));
      const line = lines.find((l) => l.msg === 'removed audit events past FORMGATE_AUDIT_RETENTION_DAYS')!;
      assert.deepEqual({ events: line.events, more: line.more }, { events: 2, more: false });
    } finally {
      stop();
    }
  });

  it('keeps everything when the retention is off', async () => {
    await events(5000);
    assert.equal(await purgeAuditEvents({ audit: ctx.audit, config: testConfig(database, { auditRetentionDays: 'forever' }) }, NOW), null);
    assert.equal((await ages()).length, 1);
  });
});

describe('FORMGATE_AUDIT_RETENTION_DAYS', () => {
  it('is 365 days by default; a number of days, or 0, off or forever to keep every event', () => {
    assert.equal(buildConfig({}).auditRetentionMs, 365 * DAY);
    assert.equal(buildConfig({ auditRetentionDays: ' 90 ' }).auditRetentionMs, 90 * DAY);
    for (const forever of ['0', 'off', 'forever', 'Forever']) assert.equal(buildConfig({ auditRetentionDays: forever }).auditRetentionMs, null, forever);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['-1', 'a year', '1.5'])
      assert.throws(() => buildConfig({ auditRetentionDays: bad }), /FORMGATE_AUDIT_RETENTION_DAYS must be a whole number of days/);
  });
});
