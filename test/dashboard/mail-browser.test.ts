import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { outboxDir } from '../../src/mail/transport.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn, signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const PASSWORD = 'correct horse battery';
const ADMIN = 'admin@example.com';
const from = visitorAddresses(64);

/** The instance admin (the first account), a form emailing the team, and one submission to it. */
async function adminWithSubmission(app: TestApp, page: Page): Promise<{ formId: string }> {
  await signUp(page, app, ADMIN, PASSWORD);
  const user = await app.ctx.users.requireByEmail(ADMIN);
  const [workspace] = (await app.ctx.workspaces.listForUser(user.id, { limit: 1, after: null })).rows;
  const form = await app.ctx.forms.createForm(user.id, workspace!.id, { name: 'Contact', notificationEmails: ['team@example.com'] });
  const posted = await postJson(app, form.id, { name: 'Ada', message: 'Hello' }, from());
  assert.equal(posted.status, 200);
  return { formId: form.id };
}

/** The notification's row of the delivery log, once the worker has tried it (the page reloaded until then). */
async function deliveredRow(page: Page, app: TestApp, formId: string, status: string) {
  await page.goto(`${app.publicUrl}/forms/${formId}/deliveries`);
  const row = page.getByRole('row').filter({ hasText: 'Notification email to team@example.com' });
  await eventually(
    async () => {
      if ((await row.getByText(status, { exact: true }).count()) === 1) return true;
      await page.reload();
      return false;
    },
    `the notification to show ${status}`,
    20_000,
    250,
  );
  return row;
}

const banner = (page: Page) => page.getByRole('region', { name: 'Emails are not being sent.' });
const mailSection = (page: Page) => page.getByRole('region', { name: 'Mail', exact: true });

/** Presses "Send a test email" on the admin page and waits for the page it leads back to. */
async function sendTestEmail(page: Page, app: TestApp): Promise<void> {
  await page.goto(`${app.publicUrl}/admin`);
  await Promise.all([page.waitForURL(/\/admin#mail$/), mailSection(page).getByRole('button', { name: 'Send a test email' }).click()]);
}

describe(`dashboard in Chromium: mail that is not sent is not "Delivered" (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  describe('without FORMGATE_SMTP_URL', () => {
    let app: TestApp;
    let page: Page;
    let formId: string;
    before(async () => {
      app = await startApp({}, { delivery: true });
      page = await newPage(browser);
    });
    after(async () => {
      await page?.context().close();
      await app?.close();
    });

    it('tells the admin on every page, shows the email "Written to a file", and the test email says where it went', async () => {
      ({ formId } = await adminWithSubmission(app, page));
      const folder = outboxDir(app.ctx.config);
      const { database } = app.ctx.config;
      assert.equal(folder, path.join(database.dialect === 'sqlite' ? path.dirname(database.file) : app.ctx.config.dataDir, 'outbox'), 'beside the database');

      // the banner, on the workspace page and on the form's pages, names the folder and leads to the mail section
      assert.ok(await banner(page).isVisible(), 'the banner on the workspace page');
      assert.ok(await banner(page).getByText(folder).isVisible());
      await checkPage(page, 'mail-banner-workspace');

      const row = await deliveredRow(page, app, formId, 'Written to a file');
      assert.equal(await row.getByText('Delivered', { exact: true }).count(), 0, 'not called delivered');
      assert.ok(await row.getByText(folder, { exact: true }).isVisible(), 'the folder it was written to');
      assert.ok(await banner(page).isVisible(), 'the banner on the delivery log too');
      await checkPage(page, 'mail-deliveries-written');

      // the submission's page says the same
      await page.goto(`${app.publicUrl}${await row.getByRole('link', { name: 'Ada', exact: true }).getAttribute('href')}`);
      assert.ok(await page.getByText('Written to a file', { exact: true }).first().isVisible());

      await Promise.all([page.waitForURL(/\/admin#mail$/), banner(page).getByRole('link', { name: 'Set up mail' }).click()]);
      assert.ok(await mailSection(page).getByText(`every email is written to a file in ${folder}`).isVisible());
      assert.ok(await mailSection(page).getByText('Formgate <forms@localhost>').isVisible(), 'the From address');

      const before = new Set(fs.readdirSync(folder));
      await sendTestEmail(page, app);
      const written = fs.readdirSync(folder).filter((name) => !before.has(name));
      assert.equal(written.length, 1, 'one file written by the test');
      const answer = mailSection(page).getByRole('status');
      assert.ok(await answer.getByText(`Test email to ${ADMIN} written to a file, not sent:`).isVisible());
      assert.ok(await answer.getByText(path.join(folder, written[0]!), { exact: true }).isVisible(), 'the file it was written to');
      assert.match(fs.readFileSync(path.join(folder, written[0]!), 'utf8'), new RegExp(`^To: ${ADMIN}`, 'm'));
      await checkPage(page, 'mail-admin-files');
      await page.reload();
      assert.equal(await mailSection(page).getByRole('status').count(), 0, 'the answer is shown once');
    });

    it('never shows a member who is not the instance admin the banner or the admin page', async () => {
      const admin = await app.ctx.users.requireByEmail(ADMIN);
      const [workspace] = (await app.ctx.workspaces.listForUser(admin.id, { limit: 1, after: null })).rows;
      await app.ctx.users.createUser('member@example.com', PASSWORD);
      await app.ctx.workspaces.addMember(workspace!.id, 'member@example.com');
      const member = await newPage(browser);
      try {
        await logIn(member, app, 'member@example.com', PASSWORD);
        await member.goto(`${app.publicUrl}/w/${workspace!.id}`);
        assert.equal(await banner(member).count(), 0, 'no banner for a member');
        await member.goto(`${app.publicUrl}/forms/${formId}/deliveries`);
        assert.ok(await member.getByRole('heading', { name: 'Contact' }).isVisible(), 'the member sees the form');
        assert.equal(await banner(member).count(), 0, 'nor on a form of the workspace');
        const adminPage = await member.goto(`${app.publicUrl}/admin`);
        assert.equal(adminPage?.status(), 404);
        const posted = await member.request.post(`${app.publicUrl}/admin/mail/test`, { form: {}, maxRedirects: 0 });
        assert.notEqual(posted.status(), 303, 'no test email for a member');
      } finally {
        await member.context().close();
      }
    });
  });

  describe('with a real SMTP server', () => {
    let app: TestApp;
    let sink: SmtpSink;
    let page: Page;
    before(async () => {
      sink = await startSmtpSink();
      app = await startApp({ smtpUrl: sink.url }, { delivery: true });
      page = await newPage(browser);
    });
    after(async () => {
      await page?.context().close();
      await app?.close();
      await sink?.close();
    });

    it('shows no banner, the notification "Delivered" with the server\'s answer, and the test email the server\'s 250', async () => {
      const { formId } = await adminWithSubmission(app, page);
      assert.equal(await banner(page).count(), 0, 'no banner');
      const row = await deliveredRow(page, app, formId, 'Delivered');
      assert.ok(await row.getByText(/^250 /).isVisible(), "the server's reply line");
      await checkPage(page, 'mail-deliveries-smtp');

      const port = new URL(sink.url).port;
      await page.goto(`${app.publicUrl}/admin`);
      assert.ok(await mailSection(page).getByText(`127.0.0.1:${port}`).isVisible(), 'the server, host:port');
      const received = sink.messages.length;
      await sendTestEmail(page, app);
      const answer = mailSection(page).getByRole('status');
      assert.ok(await answer.getByText(`Test email sent to ${ADMIN}. The server answered:`).isVisible());
      assert.ok(await answer.getByText(/^250 /).isVisible(), 'the 250 line');
      const [mail] = (await sink.waitFor(received + 1)).slice(received);
      assert.deepEqual(mail!.envelopeTo, [ADMIN]);
      assert.equal(mail!.parsed.subject, 'Formgate test email');
      await checkPage(page, 'mail-admin-smtp');
    });
  });

  describe('with an SMTP server that refuses', () => {
    let server: SMTPServer;
    let app: TestApp;
    let page: Page;
    before(async () => {
      // a server that refuses every login: what a wrong password in FORMGATE_SMTP_URL meets
      server = new SMTPServer({
        logger: false,
        disabledCommands: ['STARTTLS'],
        allowInsecureAuth: true,
        onAuth(_auth, _session, callback) {
          callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.server.address() as net.AddressInfo;
      app = await startApp({ smtpUrl: `smtp://formgate:wrong-password@127.0.0.1:${port}` });
      page = await newPage(browser);
    });
    after(async () => {
      await page?.context().close();
      await app?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("shows the server's refusal with its code, and the user but never the password", async () => {
      await signUp(page, app, ADMIN, PASSWORD);
      await page.goto(`${app.publicUrl}/admin`);
      assert.ok(await mailSection(page).getByText('formgate', { exact: true }).isVisible(), 'the SMTP user');
      assert.equal(await page.getByText('wrong-password').count(), 0, 'never the password');
      await sendTestEmail(page, app);
      const answer = mailSection(page).getByRole('status');
      assert.ok(await answer.getByText(`The test email to ${ADMIN} was not sent.`).isVisible());
      assert.ok(await answer.getByText('535', { exact: true }).isVisible(), 'the reply code');
      assert.ok(await answer.getByText(/Authentication credentials invalid/).isVisible(), "the server's words");
      assert.ok(await answer.getByText('(EAUTH)').isVisible(), 'the kind of failure');
      await checkPage(page, 'mail-admin-refused');
    });

    it('says so when nothing listens at the address (connection refused)', async () => {
      const closed = net.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as net.AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const other = await startApp({ smtpUrl: `smtp://127.0.0.1:${port}` });
      const second = await newPage(browser);
      try {
        await other.ctx.users.createUser(ADMIN, PASSWORD);
        await logIn(second, other, ADMIN, PASSWORD);
        await sendTestEmail(second, other);
        assert.ok(
          await mailSection(second)
            .getByRole('status')
            .getByText(/ECONNREFUSED/)
            .first()
            .isVisible(),
          'connection refused',
        );
      } finally {
        await second.context().close();
        await other.close();
      }
    });
  });
});
