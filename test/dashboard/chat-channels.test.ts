import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startApp, type TestApp } from '../helpers/app.js';
import { startChatStandIn, TELEGRAM_TOKEN, type ChatStandIn } from '../helpers/chat-stand-in.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createToken } from '../helpers/fixtures.js';
import { decodeEntities, elementText } from '../helpers/dashboard.js';
import { person, type Person } from '../helpers/members.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe(`dashboard: a form's chat channels (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let chat: ChatStandIn;
  let receiver: WebhookReceiver;
  let owner: Person;
  let outsider: Person;

  before(async () => {
    chat = await startChatStandIn();
    receiver = await startWebhookReceiver({ status: 200 });
    app = await startApp({ telegramApiUrl: chat.telegramApiUrl, allowPrivateWebhooks: 'true' });
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
  });
  after(async () => {
    await app?.close();
    await chat?.close();
    await receiver?.close();
  });

  const newForm = async (who: Person = owner, name = 'Contact') => (await app.ctx.forms.createForm(who.userId, who.workspaceId, { name })).id;
  const settingsOf = (formId: string) => `/forms/${formId}/settings`;
  const stored = async (formId: string) =>
    (await app.ctx.database.db.selectFrom('forms').select('chatChannels').where('id', '=', formId).executeTakeFirstOrThrow()).chatChannels;

  /** Posts as the page's form does, follows the redirect, and says what the flash said. */
  async function postFollowing(
    who: Person,
    path: string,
    fields: Record<string, string> = {},
  ): Promise<{ flash: string | undefined; html: string; location: string | null }> {
    await who.client.get(path.replace(/\/settings\/.*$/, '/settings'));
    const answer = await who.client.post(path, fields);
    assert.equal(answer.status, 303, answer.html.slice(0, 600));
    const page = await who.client.get(answer.location!);
    const flash = /<div class="flash" role="status">([\s\S]*?)<\/div>/.exec(page.html)?.[1];
    return { flash: flash === undefined ? undefined : decodeEntities(flash), html: page.html, location: answer.location };
  }

  it('adds each channel, shows only its host and last characters, and never gives the secret back', async () => {
    const formId = await newForm(owner, 'Leads');
    const added = await postFollowing(owner, `${settingsOf(formId)}/chat/discord`, { url: chat.discordUrl });
    assert.equal(added.location, `${settingsOf(formId)}#chat-discord`);
    assert.equal(added.flash, 'Discord channel saved: each submission is posted there');
    await postFollowing(owner, `${settingsOf(formId)}/chat/slack-webhook`, { url: chat.slackUrl });
    await postFollowing(owner, `${settingsOf(formId)}/chat/teams`, { url: chat.teamsUrl });
    const telegram = await postFollowing(owner, `${settingsOf(formId)}/chat/telegram`, { botToken: TELEGRAM_TOKEN, chatId: '@leads_channel' });
    const host = new URL(chat.url).host;
    assert.equal(elementText(telegram.html, 'chat-discord-heading'), 'Discord');
    assert.match(telegram.html, new RegExp(`Posting each submission to <code>${host} …XYZ2</code>`));
    assert.match(telegram.html, new RegExp(`<code>${host} …XYZ1</code>`));
    assert.ok(telegram.html.includes(`with the <code>bot token …${TELEGRAM_TOKEN.slice(-4)}</code> to chat <code>@leads_channel</code>`));
    for (const secret of ['discordsecretXYZ2', 'slacksecretXYZ1', 'teamssecretXYZ3', TELEGRAM_TOKEN]) {
      assert.ok(!telegram.html.includes(secret), `the page shows ${secret}`);
    }
    // the API's form resource does not carry them either
    const token = await createToken(app, owner.userId, ['forms:read']);
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const resource = await app.api('GET', `/forms/${formId}`, { token });
    assert.equal(resource.status, 200);
    const json = JSON.stringify(resource.body);
    for (const secret of ['discordsecretXYZ2', TELEGRAM_TOKEN, 'chatChannels']) assert.ok(!json.includes(secret), `the API shows ${secret}`);

    // a blank token keeps the stored one: only the chat id changes
    await postFollowing(owner, `${settingsOf(formId)}/chat/telegram`, { botToken: '', chatId: '-1001234567890' });
    const channels = (typeof (await stored(formId)) === 'string' ? JSON.parse((await stored(formId)) as string) : await stored(formId)) as { kind: string }[];
    assert.deepEqual(
      channels.map((c) => c.kind),
      ['slack-webhook', 'discord', 'teams', 'telegram'],
    );
    assert.deepEqual(
      channels.find((c) => c.kind === 'telegram'),
      { kind: 'telegram', botToken: TELEGRAM_TOKEN, chatId: '-1001234567890' },
    );
  });

  it('refuses a bad URL, token or chat id beside its field, changes nothing, and does not echo the secret', async () => {
    const formId = await newForm(owner, 'Refusals');
    await owner.client.get(settingsOf(formId));
    const badUrl = await owner.client.post(`${settingsOf(formId)}/chat/discord`, { url: 'not a url at all SECRETISH' });
    assert.equal(badUrl.status, 400);
    assert.equal(elementText(badUrl.html, 'chat-discord-url-error'), 'Enter the whole URL, starting with https://.');
    assert.ok(!badUrl.html.includes('SECRETISH'));
    assert.match(badUrl.html, /id="chat-discord-url"[^>]*aria-invalid="true"/);
    const empty = await owner.client.post(`${settingsOf(formId)}/chat/teams`, { url: '' });
    assert.equal(elementText(empty.html, 'chat-teams-url-error'), 'Enter the webhook URL.');
    const creds = await owner.client.post(`${settingsOf(formId)}/chat/slack-webhook`, { url: 'https://user:pw@hooks.slack.com/services/x' });
    assert.equal(elementText(creds.html, 'chat-slack-webhook-url-error'), 'The URL must not carry a user name or password.');
    const telegram = await owner.client.post(`${settingsOf(formId)}/chat/telegram`, { botToken: '123:short', chatId: 'my chat' });
    assert.equal(telegram.status, 400);
    assert.match(elementText(telegram.html, 'chat-telegram-token-error') ?? '', /^This is not a bot token/);
    assert.match(elementText(telegram.html, 'chat-telegram-chat-error') ?? '', /^A chat id is a number/);
    // the chat id comes back as typed (it is no secret), the token does not
    assert.match(telegram.html, /id="chat-telegram-chat"[^>]*value="my chat"/);
    assert.ok(!telegram.html.includes('123:short'));
    assert.equal(await stored(formId), null);
    const unknown = await owner.client.post(`${settingsOf(formId)}/chat/whatsapp`, { url: chat.discordUrl });
    assert.equal(unknown.status, 404);
  });

  it('sends a test message at once through the delivery code: the service’s answer in the flash', async () => {
    const formId = await newForm(owner, 'Tests & <co>');
    await postFollowing(owner, `${settingsOf(formId)}/chat/discord`, { url: chat.discordUrl });
    await postFollowing(owner, `${settingsOf(formId)}/chat/telegram`, { botToken: TELEGRAM_TOKEN, chatId: '-100' });
    const before = chat.posts.length;
    const sent = await postFollowing(owner, `${settingsOf(formId)}/chat/discord/test`);
    assert.equal(sent.location, `${settingsOf(formId)}#chat-discord`);
    assert.equal(sent.flash, 'Test message to Discord sent (HTTP 204): check that it arrived');
    assert.equal(chat.posts.length, before + 1);
    assert.equal(
      chat.posts.at(-1)!.body.content,
      'Test message from Formgate for **Tests & \\<co\\>**\n**test:** Submissions to this form will be posted here.',
    );

    chat.next.push({ status: 404, body: '{"message": "Unknown Webhook", "code": 10015}' });
    const refused = await postFollowing(owner, `${settingsOf(formId)}/chat/discord/test`);
    assert.equal(refused.flash, 'Test message to Discord not sent: Discord refused the message (404): Unknown Webhook');

    const telegram = await postFollowing(owner, `${settingsOf(formId)}/chat/telegram/test`);
    assert.equal(telegram.flash, 'Test message to Telegram sent (HTTP 200): check that it arrived');
    assert.equal(
      chat.posts.at(-1)!.body.text,
      'Test message from Formgate for <b>Tests &amp; &lt;co&gt;</b>\n<b>test:</b> Submissions to this form will be posted here.',
    );

    const none = await postFollowing(owner, `${settingsOf(formId)}/chat/teams/test`);
    assert.equal(none.flash, 'Test message to Microsoft Teams not sent: the form has no Microsoft Teams channel');
    // nothing went through the queue
    assert.equal(
      Number(
        (
          await app.ctx.database.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('kind', '=', 'discord')
            .executeTakeFirstOrThrow()
        ).n,
      ),
      0,
    );
  });

  it('sends a signed test webhook marked as a test, and says what the receiver answered', async () => {
    const formId = await newForm(owner, 'Hooked');
    const none = await postFollowing(owner, `${settingsOf(formId)}/webhook/test`);
    assert.equal(none.flash, 'Test webhook not sent: the form has no webhook URL');
    await app.ctx.forms.updateForm(owner.userId, formId, { webhookUrl: receiver.url });
    const page = await owner.client.get(settingsOf(formId));
    assert.match(page.html, /Send a test webhook/);
    receiver.mode = { status: 200 };
    const sent = await postFollowing(owner, `${settingsOf(formId)}/webhook/test`);
    assert.equal(sent.location, `${settingsOf(formId)}#webhook-test`);
    assert.equal(sent.flash, 'Test webhook sent: check that it arrived');
    const request = receiver.requests.at(-1)!;
    const secret = await app.ctx.forms.webhookSecretForMember(owner.userId, formId);
    const verified = new Webhook(secret).verify(request.rawBody, request.headers as Record<string, string>) as { test: boolean; message: string };
    assert.equal(verified.test, true);
    assert.match(verified.message, /^This is a test webhook from Formgate for the form “Hooked”/);
    assert.match(String(request.headers['webhook-id']), /^test_/);

    receiver.mode = { status: 410 };
    const refused = await postFollowing(owner, `${settingsOf(formId)}/webhook/test`);
    // a test's 410 turns nothing off: only a delivery's does (docs/webhooks.md)
    assert.equal(refused.flash, 'Test webhook not sent: the webhook answered 410 Gone: the receiver wants no more webhooks');
  });

  it('allows 10 tests an hour per account, then says when to try again', async () => {
    const tester = await person(app, 'tester');
    const formId = await newForm(tester, 'Limited');
    await postFollowing(tester, `${settingsOf(formId)}/chat/slack-webhook`, { url: chat.slackUrl });
    // a test with nothing to send to does not count
    const untried = await postFollowing(tester, `${settingsOf(formId)}/chat/teams/test`);
    assert.equal(untried.flash, 'Test message to Microsoft Teams not sent: the form has no Microsoft Teams channel');
    for (let i = 0; i < 10; i++) {
      const sent = await postFollowing(tester, `${settingsOf(formId)}/chat/slack-webhook/test`);
      assert.match(sent.flash ?? '', /^Test message to Slack webhook sent/);
    }
    const before = chat.posts.length;
    const refused = await postFollowing(tester, `${settingsOf(formId)}/chat/slack-webhook/test`);
    assert.match(refused.flash ?? '', /^No test sent: you have sent 10 tests in the last hour\. Try again in \d+ minutes?\.$/);
    const webhook = await postFollowing(tester, `${settingsOf(formId)}/webhook/test`);
    assert.match(webhook.flash ?? '', /^No test sent/);
    assert.equal(chat.posts.length, before);
  });

  it('removes a channel', async () => {
    const formId = await newForm(owner, 'Removing');
    await postFollowing(owner, `${settingsOf(formId)}/chat/teams`, { url: chat.teamsUrl });
    const removed = await postFollowing(owner, `${settingsOf(formId)}/chat/teams/remove`);
    assert.equal(removed.flash, 'Microsoft Teams channel removed');
    assert.equal(removed.location, `${settingsOf(formId)}#chat-channels`);
    assert.ok(!removed.html.includes('Send a test message<span class="visually-hidden"> to Microsoft Teams'));
    assert.equal(await stored(formId), null);
    const again = await postFollowing(owner, `${settingsOf(formId)}/chat/teams/remove`);
    assert.equal(again.flash, 'There was no Microsoft Teams channel to remove');
  });

  it('gives an outsider the 404 page on every route, and changes or sends nothing', async () => {
    const formId = await newForm(owner, 'Private');
    await postFollowing(owner, `${settingsOf(formId)}/chat/discord`, { url: chat.discordUrl });
    await app.ctx.forms.updateForm(owner.userId, formId, { webhookUrl: receiver.url });
    const before = { chat: chat.posts.length, hooks: receiver.requests.length, stored: JSON.stringify(await stored(formId)) };
    await outsider.client.get(`/w/${outsider.workspaceId}`);
    for (const [path, fields] of [
      [`${settingsOf(formId)}/chat/discord`, { url: 'https://discord.com/api/webhooks/1/intruder' }],
      [`${settingsOf(formId)}/chat/discord/test`, {}],
      [`${settingsOf(formId)}/chat/discord/remove`, {}],
      [`${settingsOf(formId)}/webhook/test`, {}],
    ] as const) {
      const answer = await outsider.client.post(path, fields);
      assert.equal(answer.status, 404, path);
    }
    assert.deepEqual({ chat: chat.posts.length, hooks: receiver.requests.length, stored: JSON.stringify(await stored(formId)) }, before);
    // without the CSRF token, the owner's own post is refused too
    const forged = await owner.client.post(`${settingsOf(formId)}/chat/discord/remove`, { _csrf: 'not-the-token' });
    assert.equal(forged.status, 403);
    assert.equal(JSON.stringify(await stored(formId)), before.stored);
  });
});

describe(`dashboard: chat channel addresses without FORMGATE_ALLOW_PRIVATE_WEBHOOKS (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  before(async () => {
    app = await startApp();
    owner = await person(app, 'owner');
  });
  after(async () => {
    await app?.close();
  });

  it('holds each URL to its service’s shape and to public addresses', async () => {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Shapes' })).id;
    const path = `/forms/${formId}/settings`;
    await owner.client.get(path);
    const refusals: [string, string, string][] = [
      [
        'slack-webhook',
        'https://example.com/services/T/B/x',
        'A Slack incoming webhook URL starts with https://hooks.slack.com/services/; for a compatible server of your own (Mattermost, Rocket.Chat), list its host on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW.',
      ],
      [
        'discord',
        'https://discord.com/channels/1/2',
        'A Discord webhook URL starts with https://discord.com/api/webhooks/; for a compatible server of your own (Mattermost, Rocket.Chat), list its host on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW.',
      ],
      [
        'discord',
        'http://discord.com/api/webhooks/1/x',
        'The URL must start with https://; for a compatible server of your own (Mattermost, Rocket.Chat), list its host on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW.',
      ],
      [
        'teams',
        'https://127.0.0.1/workflows/x',
        'The URL must not point at a loopback, private, link-local or otherwise non-public address; to call a service on your own network, allow it on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW.',
      ],
      [
        'teams',
        'https://forms.localhost/workflows/x',
        'The URL must not point at localhost; to call a service on your own network, allow it on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW.',
      ],
      ['teams', 'https://intranet/workflows/x', 'Enter the workflow’s URL as Teams shows it (https://…logic.azure.com/… or …powerplatform.com/…).'],
    ];
    for (const [kind, url, message] of refusals) {
      const answer = await owner.client.post(`${path}/chat/${kind}`, { url });
      assert.equal(answer.status, 400, url);
      assert.equal(elementText(answer.html, `chat-${kind}-url-error`), message, url);
    }
    const stored = await app.ctx.database.db.selectFrom('forms').select('chatChannels').where('id', '=', formId).executeTakeFirstOrThrow();
    assert.equal(stored.chatChannels, null);
    for (const [kind, url] of [
      ['slack-webhook', 'https://hooks.slack.com/services/T000/B000/abcdefgh'],
      ['discord', 'https://discord.com/api/webhooks/123/abcdefgh'],
      ['teams', 'https://prod-01.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=abcd'],
    ] as const) {
      const answer = await owner.client.post(`${path}/chat/${kind}`, { url });
      assert.equal(answer.status, 303, `${url}: ${answer.html.slice(0, 300)}`);
    }
  });
});
