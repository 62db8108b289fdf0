import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Database } from '../../src/db/database.js';
import { SubmissionWriter } from '../../src/intake/writer.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm } from '../helpers/fixtures.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/**
 * Intake's pipelined group commit: a batch commits without waiting for the disk and is flushed off
 * the event loop; its visitors are answered, and its deliveries made, only after that flush.
 */
describe(`intake commits flushed off the event loop (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let database: Database;
  let formId: string;
  let workspaceId: string;
  const flushes: { finish(): void }[] = [];
  before(async () => {
    app = await startApp();
    const account = await createAccount(app);
    workspaceId = account.workspaceId;
    formId = (await createForm(app, account, { notificationEmails: ['owner@example.com'] })).id;
    // a second connection to the same database, whose WAL flushes the test holds back
    database = Database.open(app.ctx.config.database, {
      dataSync: (_handle: FileHandle) => new Promise<void>((resolve) => flushes.push({ finish: resolve })),
    });
  });
  after(async () => {
    await database.destroy();
    await app.close();
  });

  const submission = (name: string) => ({
    formId,
    workspaceId,
    data: { name },
    emailControls: null,
    spam: false,
    deliveries: { kinds: ['email' as const], notificationEmails: [], webhookUrl: null },
  });
  const storedCount = async (name: string) =>
    (await sql<{ n: number }>`SELECT count(*) AS n FROM submissions WHERE search_text LIKE ${`%${name.toLowerCase()}%`}`.execute(app.ctx.database.db)).rows[0]!
      .n;

  it('answers a batch once it is flushed, and delivers nothing of it before', async () => {
    const writer = new SubmissionWriter(database, async () => undefined);
    let answered = false;
    const stored = writer.store(submission('Ada Flush')).then((s) => {
      answered = true;
      return s;
    });

    if (TEST_DIALECT === 'postgres') {
      // PostgreSQL's commit is its own flush, and waiting for it blocks nothing
      assert.equal((await stored).status, 'accepted');
      assert.equal(Number(await storedCount('Ada Flush')), 1);
      assert.equal(flushes.length, 0);
      return;
    }
    for (let i = 0; i < 100 && flushes.length === 0; i++) await settle();
    assert.equal(flushes.length, 1, 'one flush started, off the event loop');
    assert.equal(Number(await storedCount('Ada Flush')), 1, 'committed: another connection sees it');
    await settle();
    assert.equal(answered, false, 'the visitor waits for the flush');

    let claimed: string[] | null = null;
    const claim = new JobQueue(database).claim(10, Date.now() + 1000, 60_000).then((jobs) => (claimed = jobs.map((job) => job.kind)));
    await settle();
    assert.equal(claimed, null, 'the worker may not deliver a submission that is not yet durable');

    flushes.shift()!.finish();
    const { status } = await stored;
    assert.equal(status, 'accepted');
    await settle();
    // the claim's own wait may need one more flush: it covers every commit begun before it asked
    flushes.shift()?.finish();
    await claim;
    assert.deepEqual(claimed, ['email']);
  });

  it('restores synchronous=FULL on the connection after each flushed-later commit', { skip: TEST_DIALECT !== 'sqlite' }, async () => {
    await database.transactionFlushedLater(async (trx) => {
      const inside = Object.values((await sql`PRAGMA synchronous`.execute(trx)).rows[0] as object)[0];
      assert.equal(Number(inside), 1, 'NORMAL inside: the commit skips the fsync');
    });
    const outside = Object.values((await sql`PRAGMA synchronous`.execute(database.db)).rows[0] as object)[0];
    assert.equal(Number(outside), 2, 'FULL again for every other commit');
  });
});

describe('intake commits flushed off the event loop: the file SQLite writes (sqlite)', { skip: TEST_DIALECT !== 'sqlite' }, () => {
  it('flushes the WAL beside the real file when the database path is a symbolic link', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-link-'));
    try {
      fs.mkdirSync(path.join(dir, 'real'));
      fs.writeFileSync(path.join(dir, 'real', 'formgate.db'), '');
      fs.symlinkSync(path.join(dir, 'real', 'formgate.db'), path.join(dir, 'formgate.db'));
      const flushed: string[] = [];
      const linked = Database.open(
        { dialect: 'sqlite', file: path.join(dir, 'formgate.db') },
        {
          dataSync: async (handle) => void flushed.push(fs.readlinkSync(`/proc/self/fd/${handle.fd}`)),
        },
      );
      await linked.transactionFlushedLater((trx) => sql`CREATE TABLE t (n integer)`.execute(trx));
      await linked.whenDurable();
      assert.deepEqual(flushed, [path.join(fs.realpathSync(dir), 'real', 'formgate.db-wal')]);
      await linked.destroy();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
