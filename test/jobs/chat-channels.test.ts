import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fromJson } from '../../src/db/database.js';
import { storageKey } from '../../src/files/file-store.js';
import { newId } from '../../src/ids.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';
import { chatChannelProblems, maskedChatChannel, type ChatKind } from '../../src/domain/chat-channels.js';
import { DeliveryError } from '../../src/domain/delivery-error.js';
import { attemptJob } from '../../src/jobs/attempt.js';
import type { Job } from '../../src/jobs/channels/channel.js';
import { ChatChannelDelivery, retryAfterOf } from '../../src/jobs/channels/chat.js';
import { chatText, submissionMessage } from '../../src/jobs/channels/chat-messages.js';
import { DeliveryFiles } from '../../src/jobs/channels/submission-files.js';
import type { ClaimedJob } from '../../src/jobs/job-queue.js';
import { destinationOf, laneOf } from '../../src/jobs/lanes.js';
import { deliveryKinds, enqueueDeliveries } from '../../src/jobs/submission-jobs.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startChatStandIn, TELEGRAM_TOKEN, type ChatStandIn } from '../helpers/chat-stand-in.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { postJson } from '../helpers/submit.js';

describe(`chat channels: Slack webhook, Discord, Teams, Telegram (${TEST_DIALECT})`, () => {
  let chat: ChatStandIn;
  let app: TestApp;
  let account: Account;
  let visitor = 0;
  const from = () => ({ localAddress: `127.0.9.${++visitor}` });

  before(async () => {
    chat = await startChatStandIn();
    app = await startApp({ telegramApiUrl: chat.telegramApiUrl, allowPrivateWebhooks: 'true', metrics: 'on' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app?.close();
    await chat?.close();
  });

  /** A form with every chat channel on the stand-in. */
  async function chatForm(name = 'Leads & <friends>', kinds: ChatKind[] = ['slack-webhook', 'discord', 'teams', 'telegram']) {
    const form = await createForm(app, account, { name });
    const inputs: Record<ChatKind, { url?: string; botToken?: string; chatId?: string }> = {
      'slack-webhook': { url: chat.slackUrl },
      discord: { url: chat.discordUrl },
      teams: { url: chat.teamsUrl },
      telegram: { botToken: TELEGRAM_TOKEN, chatId: '-1001234567890' },
    };
    for (const kind of kinds) await app.ctx.chatChannels.putForMember(account.userId, form.id, kind, inputs[kind]);
    return form;
  }

  const jobsOf = (submissionId: string) =>
    app.ctx.database.db.selectFrom('jobs').selectAll().where('submissionId', '=', submissionId).orderBy('kind').execute();

  it('posts an accepted submission to each channel, in each service’s format and escaping', async () => {
    const form = await chatForm();
    const before = chat.posts.length;
    const answer = await postJson(app, form.id, { name: 'Ada <b>*bold*</b> @everyone', message: 'Call me & soon' }, from());
    assert.equal(answer.status, 200);
    const jobs = await jobsOf(answer.body.id);
    assert.deepEqual(
      jobs.map((j) => j.kind),
      ['discord', 'slack-webhook', 'teams', 'telegram'],
    );
    // the job names its channel by kind only: the URL and token stay in the form, read when sent
    for (const job of jobs) assert.deepEqual(fromJson(job.payload), { formId: form.id });
    await until('the four posts', () => chat.posts.length >= before + 4);
    const posts = chat.posts.slice(before);
    const by = (prefix: string) => posts.find((p) => p.path.startsWith(prefix))!;
    // each message ends with a link to the submission's page in the dashboard, in the service's own link syntax
    const page = `${app.ctx.config.publicUrl}/submissions/${answer.body.id}`;
    assert.match(page, /^http:\/\/[^/]+\/submissions\/[\w-]+$/);

    const slack = by('/slack/');
    assert.equal(slack.path, '/slack/services/T000/B000/slacksecretXYZ1');
    assert.equal(
      slack.body.text,
      `New submission to *Leads &amp; &lt;friends&gt;*\n*name:* Ada &lt;b&gt;*bold*&lt;/b&gt; @everyone\n*message:* Call me &amp; soon\n<${page}|Open in Formgate>`,
    );

    const discord = by('/discord/');
    assert.equal(
      discord.body.content,
      `New submission to **Leads & \\<friends\\>**\n**name:** Ada \\<b\\>\\*bold\\*\\</b\\> \\@everyone\n**message:** Call me & soon\n[Open in Formgate](${page})`,
    );
    assert.deepEqual(discord.body.allowed_mentions, { parse: [] });

    const teams = by('/teams/');
    assert.equal(teams.body.type, 'message');
    const card = teams.body.attachments[0];
    assert.equal(card.contentType, 'application/vnd.microsoft.card.adaptive');
    assert.equal(card.content.type, 'AdaptiveCard');
    assert.deepEqual(
      card.content.body.map((block: { text: string }) => block.text),
      ['New submission to **Leads & <friends>**', '**name:** Ada <b>\\*bold\\*</b> @everyone', '**message:** Call me & soon', `[Open in Formgate](${page})`],
    );

    const telegram = by('/telegram/');
    assert.equal(telegram.path, `/telegram/bot${TELEGRAM_TOKEN}/sendMessage`);
    assert.equal(telegram.body.chat_id, '-1001234567890');
    assert.equal(telegram.body.parse_mode, 'HTML');
    assert.equal(
      telegram.body.text,
      `New submission to <b>Leads &amp; &lt;friends&gt;</b>\n<b>name:</b> Ada &lt;b&gt;*bold*&lt;/b&gt; @everyone\n<b>message:</b> Call me &amp; soon\n<a href="${page}">Open in Formgate</a>`,
    );

    await until('the four jobs done', async () => (await jobsOf(answer.body.id)).every((j) => j.status === 'done'));
    const records = await app.ctx.deliveries.forSubmission(answer.body.id);
    assert.deepEqual(records.map((r) => [r.kind, r.status, r.tries.at(-1)?.statusCode]).sort(), [
      ['discord', 'done', 204],
      ['slack-webhook', 'done', 200],
      ['teams', 'done', 202],
      ['telegram', 'done', 200],
    ]);
  });

  it('plans one delivery per channel, from the column as either database gives it', () => {
    const form = { notificationEmails: '[]', slackChannel: null, webhookUrl: null, plan: 'FREE' as const, autoresponderPaused: null };
    const channels = [
      { kind: 'teams', url: 'https://x.logic.azure.com/w' },
      { kind: 'telegram', botToken: TELEGRAM_TOKEN, chatId: '1' },
    ];
    assert.deepEqual(deliveryKinds({ ...form, chatChannels: JSON.stringify(channels) }, false), ['teams', 'telegram']);
    assert.deepEqual(deliveryKinds({ ...form, chatChannels: channels }, false), ['teams', 'telegram']);
    assert.deepEqual(deliveryKinds({ ...form, chatChannels: null }, false), []);
    assert.deepEqual(deliveryKinds({ ...form, chatChannels: '[{"kind":"fax"}]' }, false), []);
  });

  it('rides the webhook lane, one destination per form and service', () => {
    for (const kind of ['slack-webhook', 'discord', 'teams', 'telegram']) {
      assert.equal(laneOf(kind), 'webhook');
      assert.equal(destinationOf(kind, { formId: 'f' }), `chat:${kind}:f`);
    }
  });

  describe('answers: permanent, retried, Retry-After', () => {
    let channel: ChatChannelDelivery;
    before(() => {
      channel = new ChatChannelDelivery(
        app.ctx.database,
        { outbound: new OutboundGuard({ allowPrivate: true }), telegramApiUrl: chat.telegramApiUrl },
        new DeliveryFiles(app.ctx.database, app.ctx.fileLinks),
        app.ctx.config,
      );
    });

    async function outcome(job: Job): Promise<string> {
      return channel.send(job).then(
        () => 'ok',
        (err: DeliveryError) => `${err.permanent ? 'permanent' : 'transient'} ${err.statusCode ?? '-'} ${err.retryAfterMs ?? '-'} ${err.message}`,
      );
    }

    it('fails for good on 400 and 404, retries on 408, 500 and 429 (with the wait asked for)', async () => {
      const form = await chatForm('Answers');
      const answer = await postJson(app, form.id, { name: 'Grace' }, from());
      await until('the first deliveries', async () => (await jobsOf(answer.body.id)).every((j) => j.status === 'done'));
      for (const kind of ['slack-webhook', 'discord', 'teams', 'telegram'] as const) {
        const job: Job = { id: 'j', kind, payload: { formId: form.id }, attempt: 1, submissionId: answer.body.id, idempotencyKey: answer.body.id };
        assert.equal(await outcome(job), 'ok', kind);
        chat.next.push({ status: 400, body: '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}' });
        assert.match(await outcome(job), /^permanent 400 - .* refused the message \(400\): Bad Request: chat not found$/, kind);
        chat.next.push({ status: 404, body: '{"message": "Unknown Webhook", "code": 10015}' });
        assert.match(await outcome(job), /^permanent 404 - .*\(404\): Unknown Webhook$/, kind);
        chat.next.push({ status: 500, body: 'oops' });
        assert.match(await outcome(job), /^transient 500 - .* could not take the message \(500\): oops$/, kind);
        chat.next.push({ status: 408 });
        assert.match(await outcome(job), /^transient 408 /, kind);
        chat.next.push({ status: 429, headers: { 'retry-after': '7' } });
        assert.match(await outcome(job), /^transient 429 7000 .* is limiting the messages \(asked to wait 7 s\)$/, kind);
        chat.next.push({ status: 302, headers: { location: 'https://example.com/' } });
        assert.match(await outcome(job), /^permanent 302 /, kind);
      }
      // Telegram says how long in its body; Discord too
      const telegram: Job = { id: 't', kind: 'telegram', payload: { formId: form.id }, attempt: 1, submissionId: answer.body.id, idempotencyKey: 'x' };
      chat.next.push({ status: 429, body: '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 12","parameters":{"retry_after":12}}' });
      assert.match(await outcome(telegram), /^transient 429 12000 /);
    });

    it('retries when the service cannot be reached; the message names the service, never the URL or token', async () => {
      const form = await createForm(app, account, { name: 'Unreachable' });
      await app.ctx.database.db
        .updateTable('forms')
        .set({ chatChannels: JSON.stringify([{ kind: 'discord', url: 'http://127.0.0.1:1/api/webhooks/1/hiddenSECRET' }]) })
        .where('id', '=', form.id)
        .execute();
      const answer = await postJson(app, form.id, { name: 'Edsger' }, from());
      const job: Job = { id: 'u', kind: 'discord', payload: { formId: form.id }, attempt: 1, submissionId: answer.body.id, idempotencyKey: 'x' };
      const said = await outcome(job);
      assert.match(said, /^transient - - Discord: could not reach 127\.0\.0\.1:1/);
      assert.doesNotMatch(said, /hiddenSECRET/);
    });

    it('reads the channel when sent: a changed URL applies, a removed channel fails for good', async () => {
      const form = await chatForm('Changing', ['discord']);
      const answer = await postJson(app, form.id, { name: 'Barbara' }, from());
      await until('delivered', async () => (await jobsOf(answer.body.id)).every((j) => j.status === 'done'));
      const job: Job = { id: 'c', kind: 'discord', payload: { formId: form.id }, attempt: 1, submissionId: answer.body.id, idempotencyKey: 'x' };
      await app.ctx.chatChannels.putForMember(account.userId, form.id, 'discord', { url: `${chat.url}/discord/api/webhooks/43/newsecret` });
      const before = chat.posts.length;
      assert.equal(await outcome(job), 'ok');
      assert.equal(chat.posts[before]?.path, '/discord/api/webhooks/43/newsecret');
      assert.equal(await app.ctx.chatChannels.removeForMember(account.userId, form.id, 'discord'), true);
      assert.equal(await outcome(job), 'permanent - - the form has no Discord channel any more');
      const stored = await app.ctx.database.db.selectFrom('forms').select('chatChannels').where('id', '=', form.id).executeTakeFirstOrThrow();
      assert.equal(stored.chatChannels, null);
    });
  });

  it('records a refused delivery in the log as failed, and a 429 as retried no sooner than asked', async () => {
    const form = await chatForm('Logged', ['discord']);
    chat.next.push({ status: 404, body: '{"message": "Unknown Webhook", "code": 10015}' });
    const refused = await postJson(app, form.id, { name: 'Alan' }, from());
    await until('failed', async () => (await jobsOf(refused.body.id))[0]?.status === 'failed');
    const [record] = await app.ctx.deliveries.forSubmission(refused.body.id);
    assert.equal(record?.kind, 'discord');
    assert.equal(record?.tries.length, 1);
    assert.equal(record?.tries[0]?.statusCode, 404);
    assert.equal(record?.tries[0]?.error, 'Discord refused the message (404): Unknown Webhook');

    chat.next.push({ status: 429, headers: { 'retry-after': '3000' } });
    const limited = await postJson(app, form.id, { name: 'Kurt' }, from());
    await until('tried once', async () => (await jobsOf(limited.body.id))[0]?.lastError != null);
    const [job] = await jobsOf(limited.body.id);
    assert.equal(job?.status, 'pending');
    // 3000 s asked: the next try is at least 50 minutes away, whatever the backoff drew
    assert.ok(Number(job!.runAt) - Date.now() > 2_900_000, `runAt ${job!.runAt}`);
  });

  it('counts each service’s deliveries under its own channel label', async () => {
    const scraped = await app.fetch('GET', `${app.publicUrl}/metrics`);
    assert.equal(scraped.status, 200);
    const value = (series: string) =>
      Number(
        String(scraped.body)
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length + 1) ?? 0,
      );
    for (const kind of ['slack-webhook', 'discord', 'teams', 'telegram'])
      assert.ok(value(`formgate_deliveries_total{channel="${kind}",outcome="sent"}`) >= 1, kind);
    assert.ok(value('formgate_deliveries_total{channel="discord",outcome="failed"}') >= 1);
    assert.ok(value('formgate_deliveries_total{channel="discord",outcome="retried"}') >= 1);
  });

  it('honours Retry-After in the worker’s schedule, up to the policy’s longest wait', async () => {
    const job = { id: 'r', kind: 'discord', payload: {}, attempt: 1, submissionId: null, idempotencyKey: 'r' } as unknown as ClaimedJob;
    const failing = (retryAfterMs?: number) => ({
      discord: {
        send: () => Promise.reject(new DeliveryError('limited', { permanent: false, statusCode: 429, retryAfterMs })),
      },
    });
    const options = {
      timeoutMs: 1000,
      retry: { maxAttempts: 5, baseMs: 1000, factor: 2, capMs: 60_000 },
      now: () => 0,
      random: () => 0,
      log: { warn() {}, error() {} },
    };
    assert.equal((await attemptJob(job, failing(), options)).retryAt, 1000);
    assert.equal((await attemptJob(job, failing(30_000), options)).retryAt, 30_000);
    assert.equal((await attemptJob(job, failing(999_999), options)).retryAt, 60_000);
    assert.equal(retryAfterOf('120'), 120_000);
    assert.equal(retryAfterOf(new Date(10_000).toUTCString(), 4_000), 6_000);
    assert.equal(retryAfterOf('soon'), undefined);
  });

  it('links an uploaded file by its name, signed for 7 days when the message is sent', async () => {
    const form = await createForm(app, account, { name: 'Files' });
    const fileId = newId();
    const content = 'a CV, 17 bytes ok';
    const answer = await postJson(
      app,
      form.id,
      { name: 'Ada', cv: { name: 'cv <1>.pdf', type: 'application/pdf', size: 17, url: app.ctx.fileLinks.url(fileId) } },
      from(),
    );
    await app.ctx.files.write(storageKey(account.workspaceId, fileId), Readable.from([content]), 'cv.pdf');
    await app.ctx.database.db
      .insertInto('submissionFiles')
      .values({
        id: fileId,
        submissionId: answer.body.id,
        formId: form.id,
        workspaceId: account.workspaceId,
        field: 'cv',
        position: 0,
        name: 'cv <1>.pdf',
        type: 'application/pdf',
        size: 17,
        storageKey: storageKey(account.workspaceId, fileId),
        droppedReason: null,
        createdAt: Date.now(),
      })
      .execute();
    // the channel is added once the file is stored, and the job queued as intake queues it
    await app.ctx.chatChannels.putForMember(account.userId, form.id, 'telegram', { botToken: TELEGRAM_TOKEN, chatId: '-42' });
    const stored = await app.ctx.database.db
      .selectFrom('submissions')
      .select(['id', 'formId', 'data', 'createdAt'])
      .where('id', '=', answer.body.id)
      .executeTakeFirstOrThrow();
    const before = chat.posts.length;
    await app.ctx.database.transaction((trx) => enqueueDeliveries(trx, stored, { kinds: ['telegram'], notificationEmails: [], webhookUrl: null }));
    await until('the Telegram message', () => chat.posts.length > before);
    const text: string = chat.posts.at(-1)!.body.text;
    const link = /<b>cv:<\/b> <a href="([^"]+)">cv &lt;1&gt;\.pdf<\/a> \(17 bytes\)/.exec(text);
    assert.ok(link, text);
    const url = new URL(link[1]!.replace(/&amp;/g, '&'));
    assert.ok(app.ctx.fileLinks.verify(url.pathname.split('/').at(-1)!, url.searchParams.get('expires') ?? '', url.searchParams.get('signature') ?? ''));
    const page = `${app.ctx.config.publicUrl}/submissions/${answer.body.id}`;
    assert.ok(text.endsWith(`\n<i>Links to files work for 7 days.</i>\n<a href="${page}">Open in Formgate</a>`), text);
  });

  it('cuts a message to the service’s size with a note, never inside its markup', () => {
    const long = 'x&'.repeat(3000);
    const discord = chatText(
      'discord',
      submissionMessage('F', { a: 'short', b: long, c: 'after' }, [], () => ''),
    );
    assert.ok(discord.length <= 2000, String(discord.length));
    assert.match(
      discord,
      /^New submission to \*\*F\*\*\n\*\*a:\*\* short\n\*\*b:\*\* (x&)+x?…\n\*Cut here: the message was too long for Discord\. The whole submission is on the dashboard\.\*$/,
    );
    const telegram = chatText(
      'telegram',
      submissionMessage('F', { b: long }, [], () => ''),
    );
    assert.ok(telegram.length <= 4096);
    // an entity is never cut in half
    assert.match(telegram, /\n<b>b:<\/b> (x&amp;)+x?…\n<i>Cut here/);
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`field${i}`, 'value']));
    const cut = chatText(
      'discord',
      submissionMessage('F', many, [], () => ''),
    );
    assert.ok(cut.length <= 2000);
    assert.ok(cut.endsWith('The whole submission is on the dashboard.*'));
    // the link to the submission's page is kept below the note, whatever is cut
    const page = 'https://forms.example/submissions/sub_1';
    for (const [kind, limit, link] of [
      ['discord', 2000, `[Open in Formgate](${page})`],
      ['telegram', 4096, `<a href="${page}">Open in Formgate</a>`],
      ['slack-webhook', 39_000, `<${page}|Open in Formgate>`],
    ] as const) {
      const linked = chatText(
        kind,
        submissionMessage('F', { b: 'x&'.repeat(30_000) }, [], () => '', page),
      );
      assert.ok(linked.length <= limit, `${kind}: ${linked.length}`);
      const lines = linked.split('\n');
      assert.equal(lines.at(-1), link, kind);
      assert.match(lines.at(-2)!, /Cut here/, kind);
    }
  });

  it('links the submission’s page in each service’s link syntax, its address escaped for that syntax', () => {
    // not an address Formgate makes (the id is URL-encoded, the public URL has no path): each markup's special characters at once
    const url = 'https://forms.example/submissions/a?b=1&c=<2>|(3)"';
    const message = submissionMessage('F', { name: 'Ada' }, [], () => '', url);
    const last = (kind: ChatKind) => chatText(kind, message).split('\n').at(-1);
    assert.equal(last('slack-webhook'), '<https://forms.example/submissions/a?b=1&amp;c=&lt;2&gt;%7C(3)"|Open in Formgate>');
    assert.equal(last('discord'), '[Open in Formgate](https://forms.example/submissions/a?b=1&c=%3C2%3E|%283%29")');
    assert.equal(last('teams'), '[Open in Formgate](https://forms.example/submissions/a?b=1&c=%3C2%3E|%283%29")');
    assert.equal(last('telegram'), '<a href="https://forms.example/submissions/a?b=1&amp;c=&lt;2&gt;|(3)&quot;">Open in Formgate</a>');
    // no address, no link (a test message)
    assert.equal(
      chatText(
        'discord',
        submissionMessage('F', { name: 'Ada' }, [], () => ''),
      ),
      'New submission to **F**\n**name:** Ada',
    );
  });

  it('links files by name, signed', () => {
    const file = { id: 'fil_1', field: 'cv', name: 'cv_[final].pdf', type: 'application/pdf', size: 2048 };
    const message = submissionMessage(
      'F',
      { cv: { name: 'cv_[final].pdf', url: 'https://api.example/v1/submissions/s/files/fil_1' } },
      [file],
      () => 'https://forms.example/files/fil_1?sig=abc',
    );
    assert.equal(chatText('discord', message).split('\n')[1], '**cv:** [cv\\_\\[final\\].pdf](https://forms.example/files/fil_1?sig=abc) (2.0 KB)');
    assert.equal(chatText('telegram', message).split('\n')[1], '<b>cv:</b> <a href="https://forms.example/files/fil_1?sig=abc">cv_[final].pdf</a> (2.0 KB)');
    assert.equal(chatText('slack-webhook', message).split('\n')[2], '_Links to files work for 7 days._');
  });

  it('checks each service’s address shape unless its host is listed, and masks the secrets', () => {
    const unlisted = () => false;
    const listed = () => true;
    assert.deepEqual(chatChannelProblems({ kind: 'slack-webhook', url: 'https://hooks.slack.com/services/T/B/x' }, unlisted), {});
    assert.match(chatChannelProblems({ kind: 'slack-webhook', url: 'https://example.com/services/T' }, unlisted).url!, /hooks\.slack\.com/);
    assert.deepEqual(chatChannelProblems({ kind: 'discord', url: 'https://discordapp.com/api/webhooks/1/x' }, unlisted), {});
    assert.match(chatChannelProblems({ kind: 'discord', url: 'http://discord.com/api/webhooks/1/x' }, unlisted).url!, /https:\/\//);
    assert.deepEqual(chatChannelProblems({ kind: 'teams', url: 'https://prod-12.westeurope.logic.azure.com:443/workflows/x' }, unlisted), {});
    assert.match(chatChannelProblems({ kind: 'teams', url: 'not a url' }, unlisted).url!, /whole URL/);
    assert.deepEqual(chatChannelProblems({ kind: 'discord', url: 'http://127.0.0.1:9/hook' }, listed), {});
    assert.deepEqual(chatChannelProblems({ kind: 'telegram', botToken: TELEGRAM_TOKEN, chatId: '@my_channel' }, unlisted), {});
    assert.deepEqual(Object.keys(chatChannelProblems({ kind: 'telegram', botToken: '123:short', chatId: 'chat' }, unlisted)).sort(), ['botToken', 'chatId']);
    assert.deepEqual(maskedChatChannel({ kind: 'discord', url: 'https://discord.com/api/webhooks/1/abcdWXYZ' }), {
      kind: 'discord',
      shown: 'discord.com …WXYZ',
    });
    assert.deepEqual(maskedChatChannel({ kind: 'telegram', botToken: TELEGRAM_TOKEN, chatId: '-100' }), {
      kind: 'telegram',
      shown: 'bot token …qrstu'.replace('qrstu', TELEGRAM_TOKEN.slice(-4)),
      chatId: '-100',
    });
  });
});
