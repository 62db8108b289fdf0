import type { ComponentChildren } from 'preact';
import type { SpamProtection, ThirdPartyCaptcha } from '../../domain/captcha-providers.js';
import { SECRET_MAX_LENGTH, type SecretState, type StoredSecretProvider } from '../../services/form-secrets.js';
import type { FieldErrors } from '../field-errors.js';
import type { FormWithPlan } from '../form-frame.js';
import { Badge, Button, ButtonLink, CsrfInput, Panel, SecretValue, Time } from './components.js';
import type { Frame } from './layout.js';

/** The CAPTCHAs whose secret key the form stores (ALTCHA needs none). */
export const CAPTCHA_PROVIDERS: readonly ThirdPartyCaptcha[] = ['BOTPOISON', 'GOOGLE_RECAPTCHA_V2', 'HCAPTCHA', 'TURNSTILE'];
/** Every secret a person stores, in the order the page lists them. */
export const STORED_SECRETS: readonly StoredSecretProvider[] = [...CAPTCHA_PROVIDERS, 'SLACK', 'AKISMET'];

export const PROVIDER_NAMES: Record<StoredSecretProvider, string> = {
  BOTPOISON: 'Botpoison',
  GOOGLE_RECAPTCHA_V2: 'Google reCAPTCHA v2',
  HCAPTCHA: 'hCaptcha',
  TURNSTILE: 'Cloudflare Turnstile',
  SLACK: 'Slack',
  AKISMET: 'Akismet',
};

/** A `spamProtection` value as the pages name it. */
export function spamProtectionName(provider: SpamProtection): string {
  return provider === 'ALTCHA' ? 'ALTCHA' : PROVIDER_NAMES[provider];
}

/** "Turnstile secret key", "Slack token", "Akismet API key". */
export function secretName(provider: StoredSecretProvider): string {
  return provider === 'SLACK' ? 'Slack token' : provider === 'AKISMET' ? 'Akismet API key' : `${PROVIDER_NAMES[provider]} secret key`;
}

/** "Secret key" or "Bot token" as seen; the provider's name too for a screen reader, which reads the label alone. */
function SecretLabel({ provider, replacing }: { provider: StoredSecretProvider; replacing?: boolean }) {
  const kind = provider === 'SLACK' ? 'token' : provider === 'AKISMET' ? 'API key' : 'secret key';
  return (
    <>
      {replacing ? 'New ' : ''}
      <span class="visually-hidden">{PROVIDER_NAMES[provider]} </span>
      {replacing ? kind : provider === 'SLACK' ? 'Bot token' : provider === 'AKISMET' ? 'API key' : 'Secret key'}
    </>
  );
}

/** Where a secret's forms post. */
export function secretPath(formId: string, provider: StoredSecretProvider): string {
  return `/forms/${formId}/settings/secrets/${provider}`;
}

/** The password input and Save button that store (or replace) a secret. */
function SecretInput({
  frame,
  form,
  provider,
  label,
  error,
}: {
  frame: Frame;
  form: FormWithPlan;
  provider: StoredSecretProvider;
  label: ComponentChildren;
  error?: string;
}) {
  const id = `secret-${provider}`;
  return (
    <form method="post" action={secretPath(form.id, provider)} noValidate class="secret-form">
      <CsrfInput token={frame.csrf} />
      <label for={id} class="sub-label">
        {label}
      </label>
      <div class="entry">
        <input
          id={id}
          name="secret"
          type="password"
          autocomplete="off"
          spellcheck={false}
          maxLength={SECRET_MAX_LENGTH}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        <button type="submit">Save</button>
      </div>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </form>
  );
}

/** Why a stored secret cannot be removed now, or null. */
function inUse(form: FormWithPlan, provider: StoredSecretProvider): string | null {
  if (provider === 'SLACK') return form.slackChannel ? 'In use: the form posts to a Slack channel. Clear the channel to remove it.' : null;
  return form.spamProtection === provider ? 'In use: the form’s spam protection. Choose another (or None) to remove it.' : null;
}

/**
 * The secrets the API never shows, write-only: stored, then only said to be set (and since when),
 * with Replace and, unless the form uses it, Remove. The value never comes back into a page.
 */
export function SecretKeysPanel({ frame, form, secrets, errors }: { frame: Frame; form: FormWithPlan; secrets: SecretState[]; errors?: FieldErrors }) {
  const stored = new Map(secrets.map((s) => [s.provider, s.updatedAt]));
  // shown: what the form uses or holds; the inputs of providers it does not use wait behind a disclosure
  const shown = (provider: StoredSecretProvider) =>
    stored.has(provider) || (provider === 'SLACK' ? Boolean(form.slackChannel) : form.spamProtection === provider);
  const relevant = STORED_SECRETS.filter(shown);
  const others = STORED_SECRETS.filter((provider) => !shown(provider));
  const item = (provider: StoredSecretProvider) => {
    const updatedAt = stored.get(provider);
    const error = errors?.[`secret-${provider}`];
    const blocked = inUse(form, provider);
    return (
      <li key={provider}>
        <h3>{PROVIDER_NAMES[provider]}</h3>
        {updatedAt === undefined ? (
          <SecretInput frame={frame} form={form} provider={provider} label={<SecretLabel provider={provider} />} error={error} />
        ) : (
          <>
            <p class="secret-state">
              <Badge>Set</Badge> <Time ms={updatedAt} />
            </p>
            {blocked && <p class="muted">{blocked}</p>}
            <div class="actions">
              <details class="replace" open={error !== undefined}>
                <summary>
                  Replace<span class="visually-hidden"> the {secretName(provider)}</span>
                </summary>
                <SecretInput frame={frame} form={form} provider={provider} label={<SecretLabel provider={provider} replacing />} error={error} />
              </details>
              {!blocked && (
                <form method="post" action={`${secretPath(form.id, provider)}/remove`} class="inline-form">
                  <CsrfInput token={frame.csrf} />
                  <Button type="submit" variant="secondary">
                    Remove<span class="visually-hidden"> the {secretName(provider)}</span>
                  </Button>
                </form>
              )}
            </div>
          </>
        )}
      </li>
    );
  };
  return (
    <Panel title="Secret keys" id="secret-keys">
      <p class="hint">
        A captcha provider’s secret key (from its console; the site key goes in your page’s HTML), the Slack bot token (<code>xoxb-…</code>) and your Akismet
        API key (stored, Akismet is asked about each submission). Stored for this form only and never shown again, here or in the API.
      </p>
      {relevant.length > 0 && <ul class="secret-list">{relevant.map(item)}</ul>}
      {others.length > 0 && (
        <details class="other-secrets" open={others.some((provider) => errors?.[`secret-${provider}`] !== undefined)}>
          <summary class="other-secrets-summary">
            {relevant.length > 0 ? `Other secret keys (${others.length})` : `Secret keys of the CAPTCHA providers, Slack and Akismet (${others.length})`}
          </summary>
          <ul class="secret-list">{others.map(item)}</ul>
        </details>
      )}
    </Panel>
  );
}

/** The webhook signing secret: revealed by a POST (never in an address or a redirect), rotated after a confirmation. */
export function WebhookSecretPanel({ frame, form, secret }: { frame: Frame; form: FormWithPlan; secret?: string }) {
  return (
    <Panel title="Webhook signing secret" id="webhook-secret">
      <p>
        Every webhook carries a <code>webhook-signature</code> made with this secret (Standard Webhooks), so your receiver can check that it came from Formgate
        and was not changed.
        {!form.webhookUrl && ' This form has no webhook URL yet: the secret matters once it has one.'}
      </p>
      {secret ? (
        <>
          <p class="notice">Keep it on your server, like a password. Anyone who holds it can sign requests your receiver would accept.</p>
          <SecretValue id="webhook-secret-value" secret={secret} />
        </>
      ) : (
        <form method="post" action={`/forms/${form.id}/settings/webhook-secret#webhook-secret`} class="inline-form">
          <CsrfInput token={frame.csrf} />
          <Button type="submit" variant="secondary">
            Reveal signing secret
          </Button>
        </form>
      )}{' '}
      <ButtonLink variant="secondary" href={`/forms/${form.id}/settings/webhook-secret/rotate`}>
        Rotate…
      </ButtonLink>
    </Panel>
  );
}

/** The way to delete the form: a confirmation page first. */
export function DeletePanel({ form }: { form: FormWithPlan }) {
  return (
    <Panel title="Delete this form" id="delete">
      <p>Deletes the form with all its submissions, templates and secrets. Pages that still post to it get “not found”.</p>
      <ButtonLink variant="danger" href={`/forms/${form.id}/delete`}>
        Delete form…
      </ButtonLink>
    </Panel>
  );
}
