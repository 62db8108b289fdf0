// Notifications withheld from addresses that have not confirmed are the workspace's rule at work:
// logged at info once per address an hour, not at error per submission and address (issue 38,
// item 23: 7,500 error lines for one form). The delivery log still shows each one, with why.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WithheldLog } from '../../src/jobs/withheld-log.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount } from '../helpers/fixtures.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(33);
const SUBMISSIONS = 6;

describe(`notifications withheld from unconfirmed addresses (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  const log = collectingLogger();
  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, confirmRecipients: 'on' }, { delivery: true, logger: log.logger });
  });
  after(async () => {
    await app.close();
    await sink.close();
  });

  it('logs one info line per address, however many submissions, and no error', async () => {
    const account = await createAccount(app);
    const strangers = ['withheld-1@example.net', 'withheld-2@example.net'];
    const created = await app.api('POST', '/forms', {
      token: account.token,
      body: { workspaceId: account.workspaceId, name: 'Busy', notificationEmails: strangers },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    for (let i = 0; i < SUBMISSIONS; i++) assert.equal((await postJson(app, created.body.id, { message: `m${i}` }, from())).status, 200);

    const failed = await eventually(async () => {
      const jobs = await app.ctx.database.db.selectFrom('jobs').select(['status', 'lastError']).where('kind', '=', 'notification').execute();
      return jobs.length === SUBMISSIONS * strangers.length && jobs.every((job) => job.status === 'failed') ? jobs : undefined;
    }, 'every notification withheld');
    assert.ok(
      failed.every((job) => /waiting for confirmation/.test(job.lastError ?? '')),
      'the delivery log says why, for each',
    );

    const withheld = log.lines.filter((line) => /^notification withheld: /.test(line.msg));
    assert.deepEqual(
      withheld.map((line) => [line.level, line.recipient]).sort(),
      strangers.map((address) => [30, address]),
    );
    assert.deepEqual(
      log.lines.filter((line) => line.level >= 50),
      [],
      'no error line',
    );
  });

  it('logs an address again after the interval, with how many were withheld since', () => {
    const lines: Array<Record<string, unknown>> = [];
    let now = 0;
    const withheld = new WithheldLog({ info: (fields: object, msg: string) => void lines.push({ ...fields, msg }) } as never, 1_000, () => now);
    for (let i = 0; i < 5; i++) withheld.note('a@example.net', 'waiting', { jobId: `j${i}` });
    now = 999;
    withheld.note('a@example.net', 'waiting', { jobId: 'j5' });
    now = 1_000;
    withheld.note('a@example.net', 'waiting', { jobId: 'j6' });
    assert.deepEqual(
      lines.map((line) => [line.jobId, line.withheldSinceLastLine]),
      [
        ['j0', 0],
        ['j6', 5],
      ],
    );
  });
});
