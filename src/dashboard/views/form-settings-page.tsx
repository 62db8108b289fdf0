import { RETENTION_DAYS } from '../../domain/retention.js';
import { ALLOWED_ORIGINS_MAX } from '../../schemas/form.js';
import type { SecretState } from '../../services/form-secrets.js';
import { allowedOriginsOf } from '../../services/forms.js';
import type { RecipientStatus } from '../../services/recipients.js';
import { normaliseEmail } from '../../domain/email-address.js';
import type { FieldErrors } from '../field-errors.js';
import type { FormWithPlan } from '../form-frame.js';
import type { SettingsList, SettingsValues } from '../form-settings-input.js';
import type { ChatChannelView } from '../../services/chat-channels.js';
import { ChatChannelsPanel, type ChatPanelState } from './chat-channels-panel.js';
import { type DestinationAddState, DestinationsPanel } from './destinations-panel.js';
import type { DestinationView } from '../../services/destinations.js';
import { Button, Field, FormError, TextArea, Time } from './components.js';
import type { SettingsSection } from '../form-settings-sections.js';
import { type SectionState, SettingsIndex, SettingsProblems, SettingsSectionPanel } from './settings-section.js';
import { SPAM_PROTECTIONS } from '../../domain/captcha-providers.js';
import { DeletePanel, SecretKeysPanel, spamProtectionName, WebhookSecretPanel } from './form-secrets-settings.js';
import { SpamJudgesFields } from './spam-judges-fields.js';
import { FileUploadsPanel } from './file-uploads-panel.js';
import { CaptchaWarning, FormBehaviourPanels, FormStatePanel } from './form-behaviour-panel.js';
import { formPath, FormLayout } from './form-layout.js';
import type { Frame } from './layout.js';
import { WebhookBodyPanel, type WebhookBodyPanelProps } from './webhook-body-panel.js';

export interface FormSettingsPageProps {
  frame: Frame;
  form: FormWithPlan;
  values: SettingsValues;
  secrets: SecretState[];
  errors?: FieldErrors;
  /** Messages of the secret keys' forms, keyed `secret-<PROVIDER>`. */
  secretErrors?: FieldErrors;
  /** Shown once, after "Reveal" or "Rotate". */
  webhookSecret?: string;
  /** The section whose list was edited but not saved yet. */
  unsaved?: SettingsSection;
  /** The section just saved: its confirmation shows in it. */
  saved?: SettingsSection;
  /** The section whose save was refused (the message at the top names it). */
  refused?: SettingsSection;
  /** Whether each saved notification address may receive (keyed normalised). */
  recipients?: Map<string, RecipientStatus>;
  /** FORMGATE_CONFIRM_RECIPIENTS: addresses outside the team confirm first (the list's hint says so). */
  confirmsRecipients?: boolean;
  /** The instance admin stands behind the workspace (always, unless sign-up is open): else GET links and wording wait. */
  vouched?: boolean;
  /** The form's chat channels, their secrets masked. */
  chatChannels: ChatChannelView[];
  /** A refused save of a chat channel. */
  chatState?: ChatPanelState;
  /** The form's destinations (Airtable, Notion, Google Sheets, newsletters), without their secrets. */
  destinations?: DestinationView[];
  /** A refused add of a destination. */
  destinationState?: DestinationAddState;
  /** The instance has a spamd (FORMGATE_SPAMD_URL): a form may ask SpamAssassin. */
  spamdAvailable?: boolean;
  /** The webhook's body: its format, template and preview (a form of its own, after Notifications). */
  webhookBody: WebhookBodyPanelProps;
}

interface ListProps {
  list: SettingsList;
  legend: string;
  /** "Address 2", "Origin 1". */
  itemLabel: string;
  addLabel: string;
  /** The label of the input that holds the entry to add: "New address". */
  newLabel: string;
  type: 'email' | 'url';
  hint: string;
  action: string;
  values: SettingsValues;
  errors?: FieldErrors;
  /** What to show under an entry (a notification address's confirmation), with its id for aria-describedby. */
  statusOf?: (entry: string, id: string) => preact.JSX.Element | null;
}

/**
 * A list as one input per entry, each with its Remove button, and an input to add one. The buttons
 * post the section's form with an action name and the page comes back with the list changed (nothing
 * is saved until the section's save), so it works without script; the address's fragment brings the
 * keyboard back to the list.
 */
function ListField({ list, legend, itemLabel, addLabel, newLabel, type, hint, action, values, errors, statusOf }: ListProps) {
  const entries = values[list];
  const listError = errors?.[list];
  const hintId = `${list}-hint`;
  return (
    <fieldset id={list} aria-describedby={listError ? `${hintId} ${list}-error` : hintId}>
      <legend>{legend}</legend>
      <p class="hint" id={hintId}>
        {hint}
      </p>
      {entries.length > 0 && (
        <ul class="entry-list">
          {entries.map((entry, i) => {
            const id = `field-${list}-${i}`;
            const error = errors?.[`${list}[${i}]`];
            const status = statusOf?.(entry, `${id}-status`) ?? null;
            const describedBy = [error ? `${id}-error` : '', status ? `${id}-status` : ''].filter(Boolean).join(' ');
            return (
              <li key={`${i}-${entry}`}>
                <label for={id} class="sub-label">
                  {`${itemLabel} ${i + 1}`}
                </label>
                <div class="entry">
                  <input
                    id={id}
                    name={list}
                    {...({ type } as unknown as { type: 'text' })}
                    value={entry}
                    autocomplete="off"
                    aria-invalid={error ? 'true' : undefined}
                    aria-describedby={describedBy || undefined}
                  />
                  <Button type="submit" variant="secondary" name="action" value={`remove:${list}:${i}`} formAction={`${action}#${list}`}>
                    Remove<span class="visually-hidden">{` ${itemLabel.toLowerCase()} ${i + 1}: ${entry}`}</span>
                  </Button>
                </div>
                {error && (
                  <p class="error" id={`${id}-error`}>
                    {error}
                  </p>
                )}
                {status}
              </li>
            );
          })}
        </ul>
      )}
      <label for={`field-add-${list}`} class="sub-label">
        {newLabel}
      </label>
      <div class="entry">
        <input
          id={`field-add-${list}`}
          name={list === 'notificationEmails' ? 'addNotificationEmails' : 'addAllowedOrigins'}
          {...({ type } as unknown as { type: 'text' })}
          value={values.adding[list]}
          autocomplete="off"
        />
        <Button type="submit" variant="secondary" name="action" value={`add:${list}`} formAction={`${action}#${list}`}>
          {addLabel}
        </Button>
      </div>
      {listError && (
        <p class="error" id={`${list}-error`}>
          {listError}
        </p>
      )}
    </fieldset>
  );
}

/** The captcha choice: each provider says whether its secret key is stored, since only then can it be chosen. */
function SpamProtectionSelect({ value, secrets, errors }: { value: string; secrets: SecretState[]; errors?: FieldErrors }) {
  const stored = new Set(secrets.map((s) => s.provider));
  const error = errors?.spamProtection;
  const id = 'field-spamProtection';
  return (
    <div class="field">
      <label for={id}>Spam protection (captcha)</label>
      <p class="hint" id={`${id}-hint`}>
        Every submission must then carry the CAPTCHA’s answer. A third party’s CAPTCHA can be chosen once its secret key is stored under Secret keys below.
        ALTCHA needs no key and no third party: Formgate serves its widget and issues and checks its challenges itself (a proof of work of about a second in the
        visitor’s browser).
      </p>
      <select id={id} name="spamProtection" aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}>
        <option value="" selected={value === ''}>
          None
        </option>
        {SPAM_PROTECTIONS.map((p) => (
          <option key={p} value={p} selected={value === p}>
            {p === 'ALTCHA'
              ? 'ALTCHA (proof of work, run by Formgate: no key needed)'
              : `${spamProtectionName(p)} (${stored.has(p) ? 'secret key stored' : 'no secret key yet'})`}
          </option>
        ))}
      </select>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * Beside a saved notification address: whether it receives notifications, and for one that has not
 * confirmed yet a button that sends its link (again). An address not saved yet shows nothing.
 */
function RecipientStatusLine({ status, entry, id, action }: { status: RecipientStatus | undefined; entry: string; id: string; action: string }) {
  if (!status || status.state === 'not_required') return null;
  if (status.state === 'member')
    return (
      <p class="recipient-status ok" id={id}>
        Member of this workspace: receives notifications.
      </p>
    );
  if (status.state === 'confirmed')
    return (
      <p class="recipient-status ok" id={id}>
        Confirmed: receives notifications.
      </p>
    );
  if (status.state === 'declined')
    return (
      <p class="recipient-status declined" id={id}>
        Declined: receives no notifications.
      </p>
    );
  return (
    <div class="recipient-status waiting">
      <p id={id}>
        {status.sentAt === null ? (
          'Waiting for confirmation: no link sent yet (the hourly limit was reached). Receives no notifications until it confirms.'
        ) : (
          <>
            Waiting for confirmation: link sent <Time ms={status.sentAt} />. Receives no notifications until it confirms.
          </>
        )}
      </p>
      <Button type="submit" variant="secondary" small name="resend" value={entry} formAction={`${action}/recipients/resend`}>
        {status.sentAt === null ? 'Send link' : 'Send link again'}
        <span class="visually-hidden">{` to ${entry}`}</span>
      </Button>
    </div>
  );
}

/**
 * A form's settings: every field of the API's Form resource in sections, each its own form with its
 * own save (issue 41, item 11), an index of them at the top; then what only the dashboard holds
 * (chat channels, secrets), then deleting the form.
 */
export function FormSettingsPage({
  frame,
  form,
  values,
  secrets,
  errors,
  secretErrors,
  webhookSecret,
  unsaved,
  saved,
  refused,
  recipients,
  confirmsRecipients,
  chatChannels,
  chatState,
  destinations,
  destinationState,
  vouched = true,
  spamdAvailable = false,
  webhookBody,
}: FormSettingsPageProps) {
  const action = formPath(form.id, 'settings');
  const slackTokenSet = secrets.some((s) => s.provider === 'SLACK');
  const section: SectionState = { action, csrf: frame.csrf, saved, unsaved };
  return (
    <FormLayout frame={frame} form={form} tab="settings" title="Settings" scripts={webhookSecret ? ['copy.js', 'webhook-body.js'] : ['webhook-body.js']}>
      <FormError errors={errors} />
      <SettingsProblems errors={errors} section={refused} />
      <SettingsIndex extra={EXTRA_LINKS} />
      <SettingsSectionPanel id="general" state={section}>
        <Field label="Name" name="name" value={values.name} errors={errors} hint="1 to 128 characters." required />
        <TextArea label="Description" name="description" value={values.description} errors={errors} hint="Optional; at most 512 characters. Only you see it." />
        <Field
          label="Technology"
          name="technology"
          value={values.technology}
          errors={errors}
          hint="Optional; what the site is built with (for example Astro or WordPress); at most 128 characters."
        />
      </SettingsSectionPanel>
      <SettingsSectionPanel id="notifications" state={section}>
        <ListField
          list="notificationEmails"
          legend="Notification addresses"
          itemLabel="Address"
          addLabel="Add address"
          newLabel="New address"
          type="email"
          hint={
            confirmsRecipients
              ? 'Each accepted submission is emailed to every address here: up to 100, each at most 128 characters. An address that is not a member of this workspace first gets a link to confirm that it wants them, and receives nothing until it has.'
              : 'Each accepted submission is emailed to every address here: up to 100, each at most 128 characters.'
          }
          action={action}
          values={values}
          errors={errors}
          statusOf={(entry, id) => <RecipientStatusLine status={recipients?.get(normaliseEmail(entry))} entry={entry} id={id} action={action} />}
        />
        <div class="field check">
          <input id="field-emailThreading" type="checkbox" name="emailThreading" checked={values.emailThreading} aria-describedby="field-emailThreading-hint" />
          <label for="field-emailThreading">Thread notifications</label>
          <p class="hint" id="field-emailThreading-hint">
            All of this form’s notifications share one email thread in each recipient’s mail client.
          </p>
        </div>
        {form.webhookDisabledAt !== null && (
          <div class="alert" role="status" id="webhook-off">
            The webhook is turned off since <Time ms={form.webhookDisabledAt} />
            {form.webhookDisabledReason ? `: ${form.webhookDisabledReason}` : ''}. <strong>Save notifications</strong> turns it on again (with this URL or a new
            one); then “Retry all failed” in the <a href={formPath(form.id, 'deliveries')}>delivery log</a> sends what was missed.
          </div>
        )}
        <Field
          label="Webhook URL"
          name="webhookUrl"
          type="url"
          value={values.webhookUrl}
          errors={errors}
          hint="Optional; each accepted submission is posted here, signed (see Webhook signing secret below): as JSON of every field, or in the shape set under Webhook body below. http or https, at most 512 characters, a public address. A receiver answering 410 Gone turns the webhook off until these settings are saved again."
        />
        <Field
          label="Slack channel"
          name="slackChannel"
          value={values.slackChannel}
          errors={errors}
          hint={`Optional; at most 128 characters, for example #leads. Posting needs the Slack token under Secret keys below${slackTokenSet ? ' (stored)' : ' (not stored yet)'}.`}
        />
      </SettingsSectionPanel>
      <WebhookBodyPanel {...webhookBody} />
      <SettingsSectionPanel id="spam-protection" state={section}>
        <SpamProtectionSelect value={values.spamProtection} secrets={secrets} errors={errors} />
        <CaptchaWarning provider={form.spamProtection ? spamProtectionName(form.spamProtection) : null} formId={form.id} />
        <Field
          label="Custom honeypot field"
          name="customHoneypot"
          value={values.customHoneypot}
          errors={errors}
          hint="Optional; the name of an extra hidden field that people leave empty and bots fill in (as well as _gotcha); at most 128 characters."
        />
        <TextArea
          label="Custom spam words"
          name="customSpamWords"
          value={values.customSpamWords}
          errors={errors}
          hint="Optional; words separated by commas or line breaks that mark a submission as spam; at most 2560 characters."
        />
        <SpamJudgesFields values={values} spamdAvailable={spamdAvailable} akismetKeySet={secrets.some((s) => s.provider === 'AKISMET')} />
        <ListField
          list="allowedOrigins"
          legend="Allowed origins"
          itemLabel="Origin"
          addLabel="Add origin"
          newLabel="New origin"
          type="url"
          hint={`The sites whose pages may post to this form, written like https://example.com (no path): up to ${ALLOWED_ORIGINS_MAX}. None: any page may post.`}
          action={action}
          values={values}
          errors={errors}
        />
      </SettingsSectionPanel>
      <SettingsSectionPanel id="retention" state={section}>
        <Field
          label="Delete submissions after (days)"
          name="retentionDays"
          value={values.retentionDays}
          errors={errors}
          inputMode="numeric"
          hint={`Optional; a number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}. Once an hour, this form’s submissions older than that are deleted for good: those in the inbox, in spam and held ones, with the records of their emails and webhooks. This cannot be undone, so export what you want to keep first. Leave it empty to keep submissions until you delete them.`}
        />
        {form.retentionDays !== null && (
          <p class="notice" id="retention-now">
            {`Now: submissions are deleted ${form.retentionDays} ${form.retentionDays === 1 ? 'day' : 'days'} after they arrive.`}
          </p>
        )}
      </SettingsSectionPanel>
      <FileUploadsPanel
        values={values}
        plan={form.plan}
        upgraded={frame.plans.isUpgraded(form.plan)}
        team={frame.plans.team}
        errors={errors}
        section={section}
      />
      {values.behaviour && (
        <FormBehaviourPanels values={values.behaviour} errors={errors} vouched={vouched} allowedOrigins={allowedOriginsOf(form)} section={section} />
      )}
      {values.behaviour && <FormStatePanel values={values.behaviour} errors={errors} paused={form.paused === 1} state={form.state} section={section} />}
      <ChatChannelsPanel frame={frame} form={form} channels={chatChannels} state={chatState} />
      <DestinationsPanel frame={frame} form={form} destinations={destinations ?? []} state={destinationState} />
      <SecretKeysPanel frame={frame} form={form} secrets={secrets} errors={secretErrors} />
      <WebhookSecretPanel frame={frame} form={form} secret={webhookSecret} />
      <DeletePanel form={form} />
    </FormLayout>
  );
}

/** The index's links past the sections: the panels with forms of their own. */
const EXTRA_LINKS = [
  { id: 'webhook-body', title: 'Webhook body' },
  { id: 'chat-channels', title: 'Chat channels' },
  { id: 'destinations', title: 'Destinations' },
  { id: 'secret-keys', title: 'Secret keys' },
  { id: 'webhook-secret', title: 'Webhook signing secret' },
  { id: 'delete', title: 'Delete this form' },
];
