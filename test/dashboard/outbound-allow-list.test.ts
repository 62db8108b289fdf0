// Issue 39, items 4 and 5: one gate for every request to an address an owner chose. The admin page's
// list and FORMGATE_WEBHOOK_ALLOW let the test webhook, real webhooks, the chat channels and their
// test buttons reach the same services, and refuse the same others; a listed host may stand in for
// Slack's or Discord's own (a Mattermost or Rocket.Chat taking Slack's format).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { startChatStandIn, type ChatStandIn } from '../helpers/chat-stand-in.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { decodeEntities, elementText } from '../helpers/dashboard.js';
import { person, type Person } from '../helpers/members.js';
import { postJson } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Posts as the page's form does, follows the redirect, and says what the flash said. */
async function flashOf(who: Person, path: string, fields: Record<string, string> = {}): Promise<string | undefined> {
  const answer = await who.client.post(path, fields);
  assert.equal(answer.status, 303, answer.html.slice(0, 600));
  const page = await who.client.get(answer.location!);
  const flash = /<div class="flash" role="status">([\s\S]*?)<\/div>/.exec(page.html)?.[1];
  return flash === undefined ? undefined : decodeEntities(flash);
}

const COMPATIBLE =
  'for a compatible server of your own (Mattermost, Rocket.Chat), list its host on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW';

describe(`outgoing requests read one allow list: the admin page's (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let chat: ChatStandIn;
  let admin: Person;
  let owner: Person;

  before(async () => {
    receiver = await startWebhookReceiver({ status: 200 });
    chat = await startChatStandIn();
    // no FORMGATE_ALLOW_PRIVATE_WEBHOOKS: the receivers on loopback are reachable only when listed
    app = await startApp({ telegramApiUrl: chat.telegramApiUrl }, { delivery: true });
    admin = await person(app, 'admin');
    assert.equal((await app.ctx.users.findByEmail(admin.email))?.isAdmin, 1, 'the first account is the instance admin');
    owner = await person(app, 'owner');
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
    await chat?.close();
  });

  const settingsOf = (formId: string) => `/forms/${formId}/settings`;
  const setAllowList = async (text: string) => {
    await admin.client.get('/admin');
    assert.equal((await admin.client.post('/admin/webhook-allow', { webhookAllow: text })).status, 303);
  };

  it('sends the test webhook where real deliveries go once the address is listed, and refuses both when it is not', async () => {
    await setAllowList('127.0.0.1/32');
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'LAN hook', webhookUrl: receiver.url })).id;
    await owner.client.get(settingsOf(formId));
    assert.equal(await flashOf(owner, `${settingsOf(formId)}/webhook/test`), 'Test webhook sent: check that it arrived');
    assert.match(String(receiver.requests.at(-1)?.headers['webhook-id']), /^test_/);
    assert.equal((await postJson(app, formId, { message: 'a real one' })).status, 200);
    await eventually(async () => receiver.requests.some((r) => JSON.parse(r.rawBody).message === 'a real one'), 'the real webhook');

    // unlisted: refused, as a real delivery is (a member of a hosted installation is not told the address)
    await setAllowList('');
    const before = receiver.requests.length;
    assert.equal(
      await flashOf(owner, `${settingsOf(formId)}/webhook/test`),
      'Test webhook not sent: refused: the target address is private; deliveries go to public addresses only',
    );
    assert.equal(receiver.requests.length, before);
  });

  it('takes a Slack-compatible server at a listed host for a Slack webhook channel: saved, tested and delivered to', async () => {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Mattermost' })).id;
    // a Mattermost incoming webhook: /hooks/<key>, over http on the LAN
    const mattermost = `${chat.url}/slack/hooks/mattermostkey1234`;
    await owner.client.get(settingsOf(formId));
    await setAllowList('');
    const unlisted = await owner.client.post(`${settingsOf(formId)}/chat/slack-webhook`, { url: mattermost });
    assert.equal(unlisted.status, 400);
    assert.equal(elementText(unlisted.html, 'chat-slack-webhook-url-error'), `The URL must start with https://; ${COMPATIBLE}.`);
    const unlistedHttps = await owner.client.post(`${settingsOf(formId)}/chat/slack-webhook`, { url: 'https://127.0.0.1/hooks/x' });
    assert.equal(
      elementText(unlistedHttps.html, 'chat-slack-webhook-url-error'),
      `A Slack incoming webhook URL starts with https://hooks.slack.com/services/; ${COMPATIBLE}.`,
    );

    await setAllowList('127.0.0.1/32');
    assert.equal(
      await flashOf(owner, `${settingsOf(formId)}/chat/slack-webhook`, { url: mattermost }),
      'Slack webhook channel saved: each submission is posted there',
    );
    assert.match((await flashOf(owner, `${settingsOf(formId)}/chat/slack-webhook/test`)) ?? '', /^Test message to Slack webhook sent/);
    assert.equal(chat.posts.at(-1)?.path, '/slack/hooks/mattermostkey1234');
    assert.equal((await postJson(app, formId, { message: 'to the team chat' })).status, 200);
    await eventually(
      async () => chat.posts.some((p) => p.path === '/slack/hooks/mattermostkey1234' && JSON.stringify(p.body).includes('to the team chat')),
      'the delivery',
    );

    // taken off the list: the stored channel's test is refused at the connection, naming where to allow it
    await setAllowList('');
    const before = chat.posts.length;
    const refused = await flashOf(owner, `${settingsOf(formId)}/chat/slack-webhook/test`);
    assert.match(refused ?? '', /^Test message to Slack webhook not sent: .*refused/);
    assert.equal(chat.posts.length, before);
  });

  it('takes a Discord channel at a listed host, and still holds an unlisted one to Discord’s address', async () => {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Discord-like' })).id;
    await owner.client.get(settingsOf(formId));
    await setAllowList('127.0.0.1/32');
    assert.equal(
      await flashOf(owner, `${settingsOf(formId)}/chat/discord`, { url: chat.discordUrl }),
      'Discord channel saved: each submission is posted there',
    );
    const elsewhere = await owner.client.post(`${settingsOf(formId)}/chat/discord`, { url: 'https://chat.example.com/api/webhooks/1/x' });
    assert.equal(elsewhere.status, 400);
    assert.match(
      elementText(elsewhere.html, 'chat-discord-url-error') ?? '',
      /^A Discord webhook URL starts with https:\/\/discord\.com\/api\/webhooks\/; for a compatible server/,
    );
  });
});

describe(`outgoing requests read one allow list: FORMGATE_WEBHOOK_ALLOW (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let chat: ChatStandIn;
  let owner: Person;

  before(async () => {
    receiver = await startWebhookReceiver({ status: 200 });
    chat = await startChatStandIn();
    app = await startApp({ telegramApiUrl: chat.telegramApiUrl, webhookAllow: '127.0.0.1/32' });
    owner = await person(app, 'owner');
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
    await chat?.close();
  });

  it('lets the test webhook and a Slack-compatible channel reach a listed network', async () => {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Env', webhookUrl: receiver.url })).id;
    const settings = `/forms/${formId}/settings`;
    await owner.client.get(settings);
    assert.equal(await flashOf(owner, `${settings}/webhook/test`), 'Test webhook sent: check that it arrived');
    assert.equal(receiver.requests.length, 1);
    const rocket = `${chat.url}/slack/hooks/rocketchat/abcd`;
    assert.equal(await flashOf(owner, `${settings}/chat/slack-webhook`, { url: rocket }), 'Slack webhook channel saved: each submission is posted there');
    assert.match((await flashOf(owner, `${settings}/chat/slack-webhook/test`)) ?? '', /^Test message to Slack webhook sent/);
    assert.equal(chat.posts.at(-1)?.path, '/slack/hooks/rocketchat/abcd');
  });
});
