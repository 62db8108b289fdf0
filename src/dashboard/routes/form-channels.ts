import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../context.js';
import { CHAT_KIND_NAMES, isChatKind, type ChatKind } from '../../domain/chat-channels.js';
import { ProblemError } from '../../errors.js';
import type { TestOutcome } from '../../services/chat-channels.js';
import { fieldErrors } from '../field-errors.js';
import { settingsWords } from '../form-settings-sections.js';
import { setFlash } from '../flash.js';
import { seeOther } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { TestEmailLimit } from '../test-email-limit.js';
import { formPath } from '../views/form-layout.js';
import { sendSettingsPage } from './form-settings.js';

type FormParams = { Params: { formId: string } };
type ChannelParams = { Params: { formId: string; channel: string } };
type Body = Record<string, unknown> | undefined;

/** The service named in the address, or `not_found` (the 404 page) for anything else. */
function kindOf(kind: string): ChatKind {
  if (!isChatKind(kind)) throw new ProblemError('not_found', `There is no ${kind} channel.`);
  return kind;
}

function text(body: Body, name: string): string | undefined {
  const value = body?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** "Test message sent to Discord", or what the service answered; at most 300 characters in the flash. */
function testFlash(what: string, outcome: TestOutcome): string {
  if (outcome.sent) return `${what} sent${outcome.statusCode ? ` (HTTP ${outcome.statusCode})` : ''}: check that it arrived`;
  return `${what} not sent: ${outcome.error}`;
}

/**
 * The Chat channels panel of a form's Settings page: add, change and remove each channel, and send
 * a test message (or a test webhook) through the delivery code, answered at once. Every route checks
 * membership first (an outsider gets the 404 page and counts nothing).
 */
export function registerFormChannelRoutes(app: FastifyInstance, ctx: AppContext, redis: Redis | null): void {
  // the tests of every channel and the webhook share one count: 10 an hour per account, as test emails;
  // one that was not sent (no such channel) does not count
  const testLimit = new TestEmailLimit(redis, 'rl-channel-test');
  const settings = (formId: string, anchor: string) => `${formPath(formId, 'settings')}#${anchor}`;

  /** Counts a test, or says on the next page why none went. */
  async function mayTest(userId: string, reply: FastifyReply): Promise<boolean> {
    const refusal = await testLimit.take(userId);
    if (!refusal) return true;
    const minutes = Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60));
    setFlash(reply, `No test sent: you have sent 10 tests in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    return false;
  }

  app.post<ChannelParams & { Body: Body }>('/forms/:formId/settings/chat/:channel', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.channel);
    const { user } = accountOf(request);
    const { formId } = request.params;
    await ctx.forms.formForMember(user.id, formId);
    const input = { url: text(request.body, 'url'), botToken: text(request.body, 'botToken'), chatId: text(request.body, 'chatId') };
    try {
      await ctx.chatChannels.putForMember(user.id, formId, kind, input);
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') throw error;
      // NOTE: the URL and token typed are not sent back, even refused: only the chat id is
      return sendSettingsPage(ctx, request, reply, { chatState: { kind, errors: fieldErrors(error, settingsWords), chatId: input.chatId } }, 400);
    }
    setFlash(reply, `${CHAT_KIND_NAMES[kind]} channel saved: each submission is posted there`);
    return seeOther(reply, settings(formId, `chat-${kind}`));
  });

  app.post<ChannelParams>('/forms/:formId/settings/chat/:channel/remove', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.channel);
    const removed = await ctx.chatChannels.removeForMember(accountOf(request).user.id, request.params.formId, kind);
    setFlash(reply, removed ? `${CHAT_KIND_NAMES[kind]} channel removed` : `There was no ${CHAT_KIND_NAMES[kind]} channel to remove`);
    return seeOther(reply, settings(request.params.formId, 'chat-channels'));
  });

  app.post<ChannelParams>('/forms/:formId/settings/chat/:channel/test', { preHandler: requireAccount }, async (request, reply) => {
    const kind = kindOf(request.params.channel);
    const { user } = accountOf(request);
    const { formId } = request.params;
    await ctx.forms.formForMember(user.id, formId);
    if (await mayTest(user.id, reply)) {
      const outcome = await ctx.chatChannels.sendTest(user.id, formId, kind);
      if (!outcome.sent && outcome.untried) await testLimit.giveBack(user.id);
      setFlash(reply, testFlash(`Test message to ${CHAT_KIND_NAMES[kind]}`, outcome));
    }
    return seeOther(reply, settings(formId, `chat-${kind}`));
  });

  app.post<FormParams>('/forms/:formId/settings/webhook/test', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { formId } = request.params;
    await ctx.forms.formForMember(user.id, formId);
    if (await mayTest(user.id, reply)) {
      const outcome = await ctx.chatChannels.sendTestWebhook(user.id, formId);
      if (!outcome.sent && outcome.untried) await testLimit.giveBack(user.id);
      setFlash(reply, testFlash('Test webhook', outcome));
    }
    return seeOther(reply, settings(formId, 'webhook-test'));
  });
}
