import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import pino from 'pino';
import { fromJson } from '../../src/db/database.js';
import { DAY_MS } from '../../src/domain/time.js';
import { newId } from '../../src/ids.js';
import type { EmailPayload } from '../../src/jobs/channels/email.js';
import { startAssignedDigests } from '../../src/jobs/assigned-digest.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { emailHtmlProblems } from '../helpers/email-html.js';
import { eventually } from '../helpers/eventually.js';
import { type Person, person } from '../helpers/members.js';
import { installQueryCounter, statementsDuring } from '../helpers/query-count.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(74);

/**
 * Issue 41, item 6: the daily digest of what is open and assigned to a member goes to those who
 * chose it and have something open and theirs, once a day, through the outbox, naming each
 * submission as the inbox does and linking to it and to the Mine view; its reads stay bounded.
 */
describe(`assigned digest (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;
  const logged: { msg: string; emails?: number }[] = [];

  before(async () => {
    installQueryCounter();
    sink = await startSmtpSink();
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    app = await startApp({ smtpUrl: sink.url, metrics: 'on' }, { delivery: true, logger });
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  async function submit(formId: string, fields: Record<string, unknown>, createdAt?: number): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const id = answer.body.id as string;
    if (createdAt !== undefined) await app.ctx.database.db.updateTable('submissions').set({ createdAt }).where('id', '=', id).execute();
    return id;
  }

  const assign = (by: Person, ids: string[], assigneeId: string) => Promise.all(ids.map((id) => app.ctx.triage.update({ id: by.userId }, id, { assigneeId })));

  /** The digests enqueued since the last call (job ids already seen), as payloads. */
  async function digestsAfter(seen: Set<string>): Promise<EmailPayload[]> {
    const jobs = await app.ctx.database.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', 'email').execute();
    const fresh = jobs.filter((job) => !seen.has(job.id));
    for (const job of fresh) seen.add(job.id);
    return fresh.map((job) => fromJson<EmailPayload>(job.payload)).filter((p) => / assigned to you in “/.test(p.subject));
  }

  it('goes to members who chose it and have open submissions assigned to them, once a day, with the right names and links', async () => {
    const seen = new Set<string>();
    await digestsAfter(seen);
    const owner = await person(app, 'assigned-owner');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    await app.ctx.workspaces.renameWorkspace(owner.userId, owner.workspaceId, 'Acme <b>');
    const member = await person(app, 'assigned-member');
    const unwilling = await person(app, 'assigned-unwilling');
    const idle = await person(app, 'assigned-idle');
    for (const p of [member, unwilling, idle]) await app.ctx.workspaces.addMember(owner.workspaceId, p.email);
    for (const p of [owner, member, idle]) await app.ctx.assignedDigests.save(p.userId, owner.workspaceId, true);
    assert.deepEqual(await app.ctx.assignedDigests.settings(unwilling.userId, owner.workspaceId), { mine: false }, 'off by default');

    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact <i>us</i>' });
    const t = Date.now() - 3 * DAY_MS;
    const older = await submit(form.id, { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Quote for 40 chairs?\nSecond line' }, t);
    const newer = await submit(form.id, { email: 'bob@example.com', message: 'Tom & Jerry: 2 < 3' }, t + 60_000);
    const done = await submit(form.id, { name: 'Done Dan', message: 'Already handled' }, t + 120_000);
    await submit(form.id, { name: 'Nobody’s', message: 'Unassigned one' }, t + 180_000);
    const theirs = await submit(form.id, { name: 'Unwilling Una', message: 'For the one who said no' }, t + 240_000);
    const idles = await submit(form.id, { name: 'Idle Ida', message: 'Done for the idle one' }, t + 300_000);
    await assign(owner, [older, newer, done], member.userId);
    await assign(owner, [theirs], unwilling.userId);
    await assign(owner, [idles], idle.userId);
    await app.ctx.triage.update({ id: owner.userId }, done, { status: 'done' });
    await app.ctx.triage.update({ id: owner.userId }, idles, { status: 'done' });

    const t1 = Date.now();
    const run = await app.ctx.assignedDigests.sendDue(t1);
    assert.equal(run.emails, 1, JSON.stringify(run));
    const [digest, ...others] = await digestsAfter(seen);
    assert.deepEqual(others, [], 'nobody else: not the one who did not choose it, not the one with only done ones, not the owner with nothing assigned');
    assert.deepEqual(digest!.to, [member.email]);
    assert.equal(digest!.subject, '2 open submissions assigned to you in “Acme <b>”');
    assert.equal(digest!.headers?.['Auto-Submitted'], 'auto-generated');
    const base = app.publicUrl;
    const text = digest!.text;
    assert.match(text, /^2 open submissions are assigned to you in the workspace “Acme <b>” and not yet done\./);
    assert.ok(text.indexOf('Ada Lovelace · Contact <i>us</i> · ') < text.indexOf('bob@example.com · Contact <i>us</i> · '), 'oldest first');
    assert.ok(text.includes(`“Quote for 40 chairs?”\n  ${base}/submissions/${older}`), text);
    assert.ok(text.includes(`“Tom & Jerry: 2 < 3”\n  ${base}/submissions/${newer}`), text);
    assert.ok(text.includes(`Open the submissions assigned to you: ${base}/w/${owner.workspaceId}/submissions?assignee=me`));
    assert.ok(text.includes(`${base}/w/${owner.workspaceId}/settings#assigned-digest`));
    assert.doesNotMatch(text, /Already handled|Unassigned one|For the one who said no|Second line|And \d+ more/);
    const html = digest!.html!;
    assert.ok(html.includes(`href="${base}/submissions/${older}"`) && html.includes(`href="${base}/w/${owner.workspaceId}/submissions?assignee=me"`));
    assert.ok(html.includes('Tom &amp; Jerry: 2 &lt; 3') && html.includes('Contact &lt;i&gt;us&lt;/i&gt;'), 'everything escaped');
    assert.ok(!html.includes('Acme <b>') && !html.includes('<i>us'), 'no markup of the workspace’s or the form’s name');
    assert.deepEqual(await emailHtmlProblems(html), [], 'valid HTML, as every email of Formgate');

    // again within the day: nothing; half a day later: nothing; a day later: again
    assert.equal((await app.ctx.assignedDigests.sendDue(t1)).emails, 0);
    assert.equal((await app.ctx.assignedDigests.sendDue(t1 + DAY_MS / 2)).emails, 0);
    assert.deepEqual(await digestsAfter(seen), []);
    await app.ctx.triage.update({ id: owner.userId }, older, { status: 'done' });
    assert.equal((await app.ctx.assignedDigests.sendDue(t1 + DAY_MS)).emails, 1);
    const [next] = await digestsAfter(seen);
    assert.match(next!.subject, /^1 open submission assigned to you in /);
    assert.doesNotMatch(next!.text, /Quote for 40 chairs/, 'done since: not listed');

    // everything done, or the choice turned off: nothing
    await app.ctx.triage.update({ id: owner.userId }, newer, { status: 'done' });
    assert.equal((await app.ctx.assignedDigests.sendDue(t1 + 2 * DAY_MS)).emails, 0);
    await app.ctx.triage.update({ id: owner.userId }, newer, { status: 'open' });
    await app.ctx.assignedDigests.save(member.userId, owner.workspaceId, false);
    assert.equal((await app.ctx.assignedDigests.sendDue(t1 + 2 * DAY_MS)).emails, 0);
    assert.deepEqual(await digestsAfter(seen), []);

    // the email itself goes out through the outbox and the worker
    await eventually(
      async () => sink.messages.some((m) => / assigned to you in /.test(m.parsed.subject ?? '') && m.envelopeTo.includes(member.email)),
      'the digest reaches the member',
    );
  });

  it('names the 5 oldest and 5 newest of many, counts the rest, and two instances at once send it once', async () => {
    const seen = new Set<string>();
    await digestsAfter(seen);
    const owner = await person(app, 'assigned-many');
    await app.ctx.assignedDigests.save(owner.userId, owner.workspaceId, true);
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Busy' });
    const t = Date.now() - DAY_MS;
    const ids: string[] = [];
    for (let i = 0; i < 13; i++) ids.push(await submit(form.id, { name: `Person ${i}`, message: `Message ${i}` }, t + i * 1000));
    // assigned to themselves: no "assigned to you" email, but the digest all the same
    await assign(owner, ids, owner.userId);
    const now = Date.now();
    const runs = await Promise.all([app.ctx.assignedDigests.sendDue(now), app.ctx.assignedDigests.sendDue(now), app.ctx.assignedDigests.sendDue(now)]);
    assert.equal(
      runs.reduce((sum, run) => sum + run.emails, 0),
      1,
    );
    const [digest, ...others] = await digestsAfter(seen);
    assert.deepEqual(others, []);
    assert.match(digest!.subject, /^13 open submissions assigned to you in /);
    const text = digest!.text;
    const named = [...text.matchAll(/Person (\d+) · Busy/g)].map((m) => Number(m[1]));
    assert.deepEqual(named, [0, 1, 2, 3, 4, 12, 11, 10, 9, 8], 'the 5 oldest, oldest first, then the 5 newest, newest first');
    assert.match(text, /Waiting longest:[\s\S]*Newest:[\s\S]*And 3 more\./);
  });

  it('reads a bounded number of rows: the open assigned ones from their partial index, however many are done', async () => {
    const owner = await person(app, 'assigned-bounded');
    await app.ctx.assignedDigests.save(owner.userId, owner.workspaceId, true);
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Heavy' })).id;
    const t = Date.now() - 5000 * 1000;
    const rows = Array.from({ length: 3003 }, (_, i) => ({
      id: newId(),
      formId,
      workspaceId: owner.workspaceId,
      data: JSON.stringify({ message: `n ${i}` }),
      status: 'accepted' as const,
      createdAt: t + i * 1000,
      searchText: `n\n${i}`,
      assigneeId: owner.userId,
      // the oldest are done, the newest three open
      doneAt: i < 3000 ? t : null,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await app.ctx.database.db
        .insertInto('submissions')
        .values(rows.slice(i, i + 500))
        .execute();
    await app.ctx.database.db.executeQuery(CompiledQuery.raw('ANALYZE'));

    const statements = (await statementsDuring(() => app.ctx.assignedDigests.sendDue(Date.now() + 3 * DAY_MS))).filter((s) => /done_at/.test(s.text));
    assert.ok(statements.length >= 3, 'the first look, the count and the two lists');
    for (const { text, values } of statements) {
      const params = TEST_DIALECT === 'sqlite' ? (values.flat() as unknown[]) : values;
      const { rows: plan } = await app.ctx.database.db.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`EXPLAIN ${TEST_DIALECT === 'sqlite' ? 'QUERY PLAN ' : ''}${text}`, params),
      );
      const lines = plan.map((row) => row.detail ?? row['QUERY PLAN'] ?? '').join('\n');
      // NOTE: the first look's plan is the planner's choice among the members who chose it; the member's own reads are fixed
      if (/assigned_digest/.test(text)) continue;
      assert.match(lines, /submissions_assigned_open/, `${text}\n${lines}`);
    }
  });

  it('the hourly job logs each run and counts the emails on /metrics', async () => {
    const owner = await person(app, 'assigned-job');
    await app.ctx.assignedDigests.save(owner.userId, owner.workspaceId, true);
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Job' });
    await assign(owner, [await submit(form.id, { name: 'Jo', message: 'Hello' })], owner.userId);
    const counted = async () => {
      const metric = await app.ctx.metrics!.registry.getSingleMetric('formgate_assigned_digests_total')!.get();
      return metric.values[0]?.value ?? 0;
    };
    const before = await counted();
    const stop = startAssignedDigests(app.ctx, pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }));
    try {
      await eventually(async () => logged.some((line) => line.msg === 'assigned digests enqueued'), 'the run is logged');
    } finally {
      stop();
    }
    const line = logged.find((l) => l.msg === 'assigned digests enqueued')!;
    assert.ok((line.emails ?? 0) >= 1, JSON.stringify(line));
    assert.equal((await counted()) - before, line.emails);
  });
});
