import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromJson } from '../../src/db/database.js';
import type { EmailPayload } from '../../src/jobs/channels/email.js';
import { DIGEST_SETTLE_MS } from '../../src/services/spam-digests.js';
import { DAY_MS } from '../../src/domain/time.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { emailHtmlProblems } from '../helpers/email-html.js';
import { eventually } from '../helpers/eventually.js';
import { type Person, person } from '../helpers/members.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(71);
/** Spam on its own: script injection is 10 points (docs/spam-filter.md). */
const SPAM = (line: string) => ({ name: 'Mallory', email: 'mallory@example.com', message: `${line}\n<script>alert(1)</script>` });

/**
 * Issue 40, item 3: the spam digest lists exactly the spam quarantined since the workspace's last
 * one, per workspace, to the members who want it, and sends nothing when there is none.
 */
describe(`spam digest (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let sink: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  async function formOf(owner: Person, name: string): Promise<string> {
    return (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name })).id;
  }

  /** Submits, and dates the stored row `createdAt` (a digest lists spam by the time it came: tests move that time, not the clock). */
  async function submit(formId: string, fields: Record<string, unknown>, createdAt = Date.now() - 2 * DIGEST_SETTLE_MS): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const id = answer.body.id as string;
    await app.ctx.database.db.updateTable('submissions').set({ createdAt }).where('id', '=', id).execute();
    return id;
  }

  /** The digests enqueued since `since` (job ids already seen), as payloads. */
  async function digestsAfter(seen: Set<string>): Promise<EmailPayload[]> {
    const jobs = await app.ctx.database.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', 'email').execute();
    const fresh = jobs.filter((job) => !seen.has(job.id));
    for (const job of fresh) seen.add(job.id);
    return fresh.map((job) => fromJson<EmailPayload>(job.payload)).filter((p) => p.subject.startsWith('Spam digest'));
  }

  it('lists the spam since the last digest, per workspace, to opted-in members only; an empty one sends nothing', async () => {
    const seen = new Set<string>();
    await digestsAfter(seen);
    const owner = await person(app, 'digest-owner');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const member = await person(app, 'digest-member');
    const quiet = await person(app, 'digest-quiet');
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    await app.ctx.workspaces.addMember(owner.workspaceId, quiet.email);
    await app.ctx.spamDigests.save(quiet.userId, owner.workspaceId, 'daily', false);
    const other = await person(app, 'digest-other');

    const contact = await formOf(owner, 'Contact <b>us</b>');
    const otherForm = await formOf(other, 'Elsewhere');
    const first = await submit(contact, SPAM('Cheap pills & more'));
    await submit(contact, { name: 'Alice', email: 'alice@example.com', message: 'A real question' });
    await submit(otherForm, SPAM('Other workspace spam'));
    // the member's own Mark as spam is not news to the team
    const marked = await submit(contact, { name: 'Bob', message: 'Marked by hand' });
    await app.ctx.submissionMarks.markSpam(owner.userId, owner.email, { workspaceId: owner.workspaceId }, [marked]);

    const t1 = Date.now();
    const run = await app.ctx.spamDigests.sendDue(t1);
    assert.ok(run.workspaces >= 2 && run.emails >= 3, JSON.stringify(run));
    const sent = await digestsAfter(seen);
    const ours = sent.filter((p) => p.text.includes('Contact <b>us</b>'));
    assert.deepEqual(ours.map((p) => p.to[0]).sort(), [owner.email, member.email].sort(), 'the owner and the member, not the one who turned it off');
    const digest = ours[0]!;
    assert.match(digest.subject, /^Spam digest: 1 submission caught in /);
    assert.match(digest.text, /Mallory <mallory@example\.com> · Contact <b>us<\/b>/);
    assert.match(digest.text, /“Cheap pills & more”/);
    assert.match(digest.text, /Caught because: /);
    assert.match(digest.text, /Not spam: http:\/\/127\.0\.0\.1:\d+\/not-spam\/\S+/);
    assert.doesNotMatch(digest.text, /A real question|Marked by hand|Other workspace spam/);
    assert.ok(digest.html?.includes('Cheap pills &amp; more') && digest.html.includes('Contact &lt;b&gt;us&lt;/b&gt;'), 'everything escaped');
    assert.ok(!digest.html?.includes('<script') && !digest.html?.includes('<b>us'), 'no markup of the visitor’s');
    assert.deepEqual(await emailHtmlProblems(digest.html!), [], 'valid HTML, as every email of Formgate');
    assert.equal(sent.filter((p) => p.text.includes('Other workspace spam')).length, 1, 'the other workspace gets its own');
    assert.ok(ours.every((p) => p.text.includes(`/not-spam/${first}.`)));

    // the same run again, and a day later with no new spam: nothing
    assert.equal((await app.ctx.spamDigests.sendDue(t1)).emails, 0);
    assert.deepEqual(await digestsAfter(seen), []);

    // new spam a day later: that one only
    await submit(contact, SPAM('Second wave'), t1 + 60_000);
    assert.equal((await app.ctx.spamDigests.sendDue(t1 + DAY_MS / 2)).emails, 0, 'daily: not half a day later');
    await app.ctx.spamDigests.sendDue(t1 + DAY_MS);
    const next = (await digestsAfter(seen)).filter((p) => p.text.includes('Contact <b>us</b>'));
    assert.equal(next.length, 2);
    assert.match(next[0]!.text, /Second wave/);
    assert.doesNotMatch(next[0]!.text, /Cheap pills/, 'nothing listed twice');

    // the email itself goes out through the outbox and the worker
    await eventually(
      async () => sink.messages.some((m) => m.parsed.subject?.startsWith('Spam digest') && m.envelopeTo.includes(member.email)),
      'the digest reaches the member',
    );
  });

  it('waits for the period (weekly), sends nothing when off, and bounds the list at 50 with "and N more"', async () => {
    const seen = new Set<string>();
    await digestsAfter(seen);
    const owner = await person(app, 'digest-bound');
    const form = await formOf(owner, 'Busy');
    await app.ctx.spamDigests.save(owner.userId, owner.workspaceId, 'off', true);
    await submit(form, SPAM('Off spam'));
    await app.ctx.spamDigests.sendDue(Date.now());
    assert.deepEqual(await digestsAfter(seen), [], 'off: no digest');

    await app.ctx.spamDigests.save(owner.userId, owner.workspaceId, 'weekly', true);
    for (let i = 0; i < 52; i++) await submit(form, SPAM(`Bulk ${i}`));
    const t1 = Date.now();
    await app.ctx.spamDigests.sendDue(t1);
    const [digest] = await digestsAfter(seen);
    assert.ok(digest, 'weekly: the first one goes out');
    assert.match(digest.subject, /53 submissions caught/);
    assert.equal((digest.text.match(/Not spam: /g) ?? []).length, 50);
    assert.match(digest.text, new RegExp(`And 3 more in the spam folder: http://\\S+/forms/${form}/spam`));
    assert.match(digest.text, /Bulk 51/, 'the newest first');

    await submit(form, SPAM('Next day'), t1 + DAY_MS);
    await app.ctx.spamDigests.sendDue(t1 + DAY_MS);
    assert.deepEqual(await digestsAfter(seen), [], 'weekly: not a day later');
    await app.ctx.spamDigests.sendDue(t1 + 7 * DAY_MS);
    const [weekLater] = await digestsAfter(seen);
    assert.match(weekLater?.text ?? '', /Next day/);
    assert.doesNotMatch(weekLater?.text ?? '', /Bulk/);
  });

  it('two instances running at once send each workspace’s digest once', async () => {
    const seen = new Set<string>();
    await digestsAfter(seen);
    const owner = await person(app, 'digest-race');
    const form = await formOf(owner, 'Raced');
    await submit(form, SPAM('Raced spam'));
    const now = Date.now();
    await Promise.all([app.ctx.spamDigests.sendDue(now), app.ctx.spamDigests.sendDue(now), app.ctx.spamDigests.sendDue(now)]);
    assert.equal((await digestsAfter(seen)).filter((p) => p.to[0] === owner.email).length, 1);
  });
});
