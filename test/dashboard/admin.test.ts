import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { until } from '../helpers/eventually.js';
import { postJson, storedRows, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const from = visitorAddresses(3);

function flash(html: string): string | undefined {
  return /class="flash" role="status">([^<]*)</.exec(html)?.[1];
}

/** The table rows of the panel headed `heading`, as text. */
function rowsOf(html: string, heading: string): string[] {
  const section = new RegExp(`<h2 id="[^"]+">${heading}</h2>(.*?)</section>`, 's').exec(html)?.[1] ?? '';
  const rows = [...section.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => m[1]!.replace(/<option[^>]*>[^<]*<\/option>/g, ''));
  return rows.slice(1).map((row) =>
    row
      .replace(/<[^>]+>/g, ' ')
      .replace(/&quot;/g, '"')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

describe('dashboard: the instance admin’s page', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let admin: DashboardClient;
  let other: DashboardClient;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    admin = new DashboardClient(app);
    await admin.enter('/signup', 'admin@example.com', PASSWORD);
    other = new DashboardClient(app);
    await app.ctx.users.createUser('other@example.com', PASSWORD);
    await other.enter('/login', 'other@example.com', PASSWORD);
  });
  after(async () => {
    await app?.close();
    await sink?.close();
  });

  it('is the 404 page for anyone but the instance admin, and their plan change changes nothing', async () => {
    const { workspace } = await app.ctx.users.createUser('someone@example.com');
    const page = await other.get('/admin');
    assert.equal(page.status, 404);
    assert.doesNotMatch(page.html, /admin@example\.com/);
    await other.get('/workspaces'); // a valid CSRF token of its own session
    const change = await other.post(`/admin/workspaces/${workspace.id}/plan`, { plan: 'DEALIFY' });
    assert.equal(change.status, 404);
    assert.equal((await app.ctx.workspaces.requireById(workspace.id)).plan, 'FREE');
    assert.doesNotMatch((await other.get('/workspaces')).html, /href="\/admin"/, 'no link to it in the account menu');
    assert.match((await admin.get('/workspaces')).html, /href="\/admin">Admin</, 'the admin has one');
    const visitor = await new DashboardClient(app).get('/admin');
    assert.equal(visitor.status, 303, 'logged out: the login page first');
  });

  it('lists accounts (admin badge, workspaces) and workspaces (id, owner, plan, submissions, members)', async () => {
    const { workspace } = await app.ctx.users.createUser('lister@example.com');
    await app.ctx.workspaces.addMember(workspace.id, 'other@example.com');
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 12, name: 'Listed & Co' }).where('id', '=', workspace.id).execute();
    const page = await admin.get('/admin');
    assert.equal(page.status, 200);
    const accounts = rowsOf(page.html, 'Accounts');
    assert.match(accounts[0]!, /^lister@example\.com \d+ \w{3} \d{4}, \d\d:\d\d UTC 1 Disable or delete$/);
    assert.ok(
      accounts.some((a) => /^other@example\.com .* 2 Disable or delete$/.test(a)),
      accounts.join('\n'),
    );
    assert.match(accounts.at(-1)!, /^admin@example\.com Admin .* 1 You$/);
    const [newest] = rowsOf(page.html, 'Workspaces');
    assert.equal(newest, `Listed &amp; Co ${workspace.id} lister@example.com 12 used 238 left 2 Free Plan for Listed &amp; Co Change plan`);
  });

  it('changes a plan as set-plan does: held submissions released, every owner emailed once, members not', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    await app.ctx.workspaces.setPlan(account.workspaceId, 'FREE', { tellOwners: false });
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', account.workspaceId).execute();
    for (let n = 1; n <= 3; n++) assert.equal((await postJson(app, form.id, { name: `Visitor ${n}` }, from())).status, 200);
    assert.deepEqual(
      (await storedRows(app, form.id)).map((r) => r.status),
      ['held', 'held', 'held'],
    );
    // a second owner and a plain member
    const coOwner = await app.ctx.users.createUser('co-owner@example.com');
    await app.ctx.database.db
      .insertInto('workspaceMembers')
      .values({ workspaceId: account.workspaceId, userId: coOwner.user.id, role: 'owner', createdAt: Date.now() })
      .execute();
    await app.ctx.workspaces.addMember(account.workspaceId, 'other@example.com');
    await app.ctx.database.db.updateTable('workspaces').set({ name: 'Acme' }).where('id', '=', account.workspaceId).execute();

    const before = sink.messages.length;
    const page = await admin.get('/admin');
    assert.match(page.html, /<label for="plan-[a-z2-7]+">Plan for Acme<\/label>/);
    const changed = await admin.post(`/admin/workspaces/${account.workspaceId}/plan`, { plan: 'BUNDLE_50000', back: '/admin' });
    assert.equal(changed.status, 303);
    assert.equal(changed.location, '/admin');
    const shown = await admin.get('/admin');
    assert.equal(
      flash(shown.html),
      'Plan of &quot;Acme&quot; changed to Upgraded (50,000 submissions); 3 held submissions released; the owners are told by email.',
    );
    assert.deepEqual(
      (await storedRows(app, form.id)).map((r) => r.status),
      ['accepted', 'accepted', 'accepted'],
    );
    const workspace = await app.ctx.workspaces.requireById(account.workspaceId);
    assert.deepEqual([workspace.plan, workspace.submissionsUsed], ['BUNDLE_50000', 253]);

    // (the owner was also told, earlier, that the allowance ran out)
    const planMails = () => sink.messages.slice(before).filter((m) => /is now on the/.test(m.parsed.subject ?? ''));
    await until('two plan emails', () => planMails().length >= 2);
    const mails = planMails();
    assert.deepEqual(mails.map((m) => m.envelopeTo.join(',')).sort(), ['co-owner@example.com', account.email].sort());
    for (const mail of mails) {
      assert.equal(mail.parsed.subject, 'Workspace "Acme" is now on the Upgraded (50,000 submissions) plan');
      assert.match(mail.parsed.text ?? '', /changed from Free to Upgraded \(50,000 submissions\)/);
      assert.match(mail.parsed.text ?? '', /49,747 are left/);
      assert.match(mail.parsed.text ?? '', /3 held submissions were released/);
      assert.ok((mail.parsed.text ?? '').includes(`${app.publicUrl}/w/${account.workspaceId}`), 'links to the workspace');
    }
    const jobs = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    const to = jobs.map((j) => JSON.stringify(j.payload)).filter((p) => p.includes('now on the'));
    assert.equal(to.length, 2, 'one email per owner');
    assert.ok(!to.some((p) => p.includes('other@example.com')), 'members are not told');
  });

  it('changes nothing and tells no one when the plan is the same; an unknown plan is refused beside the select', async () => {
    const { workspace } = await app.ctx.users.createUser('same@example.com');
    const emails = async () => (await app.ctx.database.db.selectFrom('jobs').select('id').where('kind', '=', 'email').execute()).length;
    const count = await emails();
    await admin.get('/admin');
    const same = await admin.post(`/admin/workspaces/${workspace.id}/plan`, { plan: 'FREE', back: '/admin' });
    assert.equal(same.status, 303);
    assert.equal(flash((await admin.get('/admin')).html), '&quot;My workspace&quot; is already on Free; nothing changed.');
    const refused = await admin.post(`/admin/workspaces/${workspace.id}/plan`, { plan: 'GOLD', back: '/admin' });
    assert.equal(refused.status, 400);
    // people read plans by their names, never their codes
    assert.match(
      refused.html,
      new RegExp(`id="plan-${workspace.id}-error">Choose one of the plans listed \\(Free, Upgraded \\(50,000 submissions\\), Upgraded \\(Dealify\\)\\)\\.<`),
    );
    assert.equal((await app.ctx.workspaces.requireById(workspace.id)).plan, 'FREE');
    assert.equal(await emails(), count);
    const unknown = await admin.post('/admin/workspaces/nosuchworkspace/plan', { plan: 'DEALIFY', back: '/admin' });
    assert.equal(unknown.status, 404);
    const elsewhere = await admin.post(`/admin/workspaces/${workspace.id}/plan`, { plan: 'FREE', back: 'https://evil.example/' });
    assert.equal(elsewhere.location, '/admin', 'never back to another site');
  });

  it('pages both lists with "Next page" links carrying a signed cursor', async () => {
    for (let n = 0; n < 50; n++) await app.ctx.users.createUser(`paged-${n}@example.com`);
    const accounts = await app.ctx.database.db.selectFrom('users').select('email').execute();
    const workspaces = await app.ctx.database.db.selectFrom('workspaces').select('id').execute();
    const first = await admin.get('/admin');
    const firstAccounts = rowsOf(first.html, 'Accounts');
    assert.equal(firstAccounts.length, 50);
    const next = /href="(\/admin\?accounts=[^"]+)">Next page of accounts</.exec(first.html)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next, 'a next page of accounts');
    const second = await admin.get(next);
    const secondAccounts = rowsOf(second.html, 'Accounts');
    assert.equal(firstAccounts.length + secondAccounts.length, accounts.length);
    assert.equal(new Set([...firstAccounts, ...secondAccounts].map((r) => r.split(' ')[0])).size, accounts.length, 'every account once');
    assert.doesNotMatch(second.html, /Next page of accounts/);
    assert.equal(rowsOf(second.html, 'Workspaces').length, 50, 'the workspaces stay on their first page');
    const nextWorkspaces = /href="(\/admin\?[^"]*workspaces=[^"]+)">Next page of workspaces</.exec(second.html)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(nextWorkspaces, 'a next page of workspaces');
    assert.ok(nextWorkspaces.includes('accounts='), 'keeps the accounts’ page');
    assert.equal(rowsOf((await admin.get(nextWorkspaces)).html, 'Workspaces').length, workspaces.length - 50);

    const tampered = await admin.get(`${next.slice(0, -2)}xx`);
    assert.equal(tampered.status, 400);
    const otherList = await admin.get(next.replace('accounts=', 'workspaces='));
    assert.equal(otherList.status, 400, 'a cursor of one list does not page the other');
  });
});
