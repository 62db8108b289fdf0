import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { post, postJson, visitorAddresses } from '../helpers/submit.js';

const from = visitorAddresses(9);
// the first render starts a template thread: generous, as it is only a deadline
const DEADLINE_MS = 30_000;

describe('notifications from templates, whatever a visitor sends', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let account: Account;
  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, mailFrom: 'Forms <forms@mail.example.org>' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await sink.close();
  });

  async function formWithTemplate(code: string) {
    const form = await createForm(app, account, { notificationEmails: ['desk@example.com'] });
    const put = await app.api('PUT', `/forms/${form.id}/templates/notification`, { token: account.token, body: { code } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    return form;
  }

  it('emails a template printing an object (car.color=red into {{data.car}}) and the whole of data', async () => {
    const form = await formWithTemplate('<p>Car: {{data.car}}</p><div>{{data}}</div>{{#each data}}<i>{{@key}}</i>{{/each}}');
    const before = sink.messages.length;
    const answer = await post(
      app,
      form.id,
      [
        ['car.color', 'red'],
        ['car.size', 'L'],
        ['name', 'Ada'],
        ['constructor', 'c'],
        ['toString', 't'],
      ],
      from(),
    );
    assert.equal(answer.status, 303, JSON.stringify(answer.body));
    const mail = (await sink.waitFor(before + 1, DEADLINE_MS)).at(-1)!;
    const html = String(mail.parsed.html);
    assert.match(html, /<p>Car: color: red\nsize: L<\/p>/);
    assert.match(html, /<div>car\.color: red\ncar\.size: L\nname: Ada\nconstructor: c\ntoString: t<\/div>/);
    assert.match(html, /<i>car<\/i><i>name<\/i><i>constructor<\/i><i>toString<\/i>/);
  });

  it('falls back to the default layout when the template outgrows 1 MiB on a submission, so nothing is lost', async () => {
    // five prints of a 250,000-character value: 1.25 MB, past the limit at the fifth, however fast the machine
    const form = await formWithTemplate('<p>{{data.m}}</p><p>{{data.m}}</p><p>{{data.m}}</p><p>{{data.m}}</p><p>{{data.m}}</p>');
    const before = sink.messages.length;
    const answer = await postJson(app, form.id, { name: 'Grace', m: 'y'.repeat(250_000) }, from());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const mail = (await sink.waitFor(before + 1, DEADLINE_MS)).at(-1)!;
    assert.match(String(mail.parsed.html), /New submission to/, 'the default layout');
    assert.match(mail.parsed.text ?? '', /^name: Grace$/m);
  });
});
