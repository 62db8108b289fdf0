import { CHAT_KIND_NAMES, CHAT_KINDS, type ChatKind } from '../../domain/chat-channels.js';
import type { ChatChannelView } from '../../services/chat-channels.js';
import type { FieldErrors } from '../field-errors.js';
import type { FormWithPlan } from '../form-frame.js';
import { Button, CsrfInput, Panel } from './components.js';
import type { Frame } from './layout.js';

/** What a refused save of one channel brings back: its messages, and the chat id as typed (never a URL or token). */
export interface ChatPanelState {
  kind: ChatKind;
  errors: FieldErrors;
  chatId?: string;
}

/** Where each service's address comes from, said beside its field. */
const URL_HINTS: Record<Exclude<ChatKind, 'telegram'>, string> = {
  'slack-webhook':
    'In Slack: an app’s Incoming Webhooks, Add New Webhook. It starts with https://hooks.slack.com/services/. A Mattermost or Rocket.Chat incoming webhook works too, at a host the instance admin has listed (Webhooks to private networks).',
  discord: 'In Discord: the channel’s settings, Integrations, Webhooks, New Webhook, Copy Webhook URL. It starts with https://discord.com/api/webhooks/.',
  teams:
    'In Teams: the channel’s Workflows, “Post to a channel when a webhook request is received”; copy the URL it shows (on logic.azure.com or powerplatform.com).',
};

const URL_LABELS: Record<Exclude<ChatKind, 'telegram'>, string> = {
  'slack-webhook': 'URL of the Slack webhook',
  discord: 'URL of the Discord webhook',
  teams: 'URL of the Teams workflow',
};

/** The path of a channel's actions: `/forms/<id>/settings/chat/<kind>`. */
export function chatChannelPath(formId: string, kind: ChatKind, action?: 'remove' | 'test'): string {
  return `/forms/${formId}/settings/chat/${kind}${action ? `/${action}` : ''}`;
}

function Input({ id, name, label, hint, error, value }: { id: string; name: string; label: string; hint: string; error?: string; value?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <input
        id={id}
        name={name}
        type="text"
        value={value}
        autocomplete="off"
        spellcheck={false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}
      />
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function ChannelSection({
  frame,
  form,
  kind,
  stored,
  state,
}: {
  frame: Frame;
  form: FormWithPlan;
  kind: ChatKind;
  stored?: ChatChannelView;
  state?: ChatPanelState;
}) {
  const name = CHAT_KIND_NAMES[kind];
  const errors = state?.kind === kind ? state.errors : undefined;
  const keep = stored ? ' Leave it empty to keep the one stored.' : '';
  const headingId = `chat-${kind}-heading`;
  return (
    <section class="chat-channel" id={`chat-${kind}`} aria-labelledby={headingId}>
      <h3 id={headingId}>{name}</h3>
      {stored?.chatId !== undefined ? (
        <p class="chat-channel-state">
          {'Posting each submission with the '}
          <code>{stored.shown}</code>
          {' to chat '}
          <code>{stored.chatId}</code>.
        </p>
      ) : stored ? (
        <p class="chat-channel-state">
          {'Posting each submission to '}
          <code>{stored.shown}</code>.
        </p>
      ) : (
        <p class="muted">Not set up.</p>
      )}
      {errors?.form && (
        <div class="alert" role="alert">
          {errors.form}
        </div>
      )}
      <form method="post" action={`${chatChannelPath(form.id, kind)}#chat-${kind}`} noValidate>
        <CsrfInput token={frame.csrf} />
        {kind === 'telegram' ? (
          <>
            <Input
              id="chat-telegram-token"
              name="botToken"
              label="Telegram bot token"
              hint={`From @BotFather, like 123456789:AAE…; add the bot to the chat first.${keep}`}
              error={errors?.botToken}
            />
            <Input
              id="chat-telegram-chat"
              name="chatId"
              label="Telegram chat id"
              hint="A group’s or channel’s number (groups start with -100…), or a public channel’s @name."
              error={errors?.chatId}
              value={state?.kind === kind ? state.chatId : stored?.chatId}
            />
          </>
        ) : (
          <Input id={`chat-${kind}-url`} name="url" label={URL_LABELS[kind]} hint={`${URL_HINTS[kind]}${keep}`} error={errors?.url} />
        )}
        <div class="actions">
          <Button type="submit" variant={stored ? 'secondary' : 'primary'}>
            {stored ? `Save ${name} channel` : `Add ${name} channel`}
          </Button>
        </div>
      </form>
      {stored && (
        <div class="actions">
          <form method="post" action={`${chatChannelPath(form.id, kind, 'test')}#chat-${kind}`} class="inline-form">
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="secondary">
              Send a test message<span class="visually-hidden">{` to ${name}`}</span>
            </Button>
          </form>
          <form method="post" action={`${chatChannelPath(form.id, kind, 'remove')}#chat-channels`} class="inline-form">
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="danger">
              Remove<span class="visually-hidden">{` the ${name} channel`}</span>
            </Button>
          </form>
        </div>
      )}
    </section>
  );
}

/**
 * The form's chat channels (Slack incoming webhook, Discord, Teams, Telegram), each added, changed,
 * tried and removed with a form of its own; and a test of the form's webhook. The URLs and the
 * token are never shown back: only their host and last characters.
 */
export function ChatChannelsPanel({ frame, form, channels, state }: { frame: Frame; form: FormWithPlan; channels: ChatChannelView[]; state?: ChatPanelState }) {
  return (
    <Panel title="Chat channels" id="chat-channels">
      <p>
        Each accepted submission is also posted, with its fields, to every channel set up here (files as links that work for 7 days). A channel that fails is
        retried like a webhook; see the Deliveries tab. The addresses and the token are secrets: they are kept, never shown again in full.
      </p>
      {CHAT_KINDS.map((kind) => (
        <ChannelSection key={kind} frame={frame} form={form} kind={kind} stored={channels.find((c) => c.kind === kind)} state={state} />
      ))}
      <section class="chat-channel" id="webhook-test" aria-labelledby="webhook-test-heading">
        <h3 id="webhook-test-heading">Webhook</h3>
        {form.webhookUrl ? (
          <>
            <p>
              Posts a test to <code>{form.webhookUrl}</code> now, signed like every delivery; its body says <code>"test": true</code>.
            </p>
            <form method="post" action={`/forms/${form.id}/settings/webhook/test#webhook-test`} class="inline-form">
              <CsrfInput token={frame.csrf} />
              <Button type="submit" variant="secondary">
                Send a test webhook
              </Button>
            </form>
          </>
        ) : (
          <p class="muted">No webhook URL yet: set one under Notifications to send a test.</p>
        )}
      </section>
    </Panel>
  );
}
