import type { Database } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { SecretProvider } from '../db/schema/form.js';
import type { SpamProtection } from '../domain/captcha-providers.js';
import { ProblemError, validationError } from '../errors.js';
import { newWebhookSecret } from '../jobs/channels/webhook.js';

export const SECRET_PROVIDERS: readonly SecretProvider[] = ['BOTPOISON', 'GOOGLE_RECAPTCHA_V2', 'HCAPTCHA', 'TURNSTILE', 'SLACK', 'AKISMET'];
/** The secrets people store (captcha secret keys, the Slack token, the Akismet API key); the webhook's is made by Formgate. */
export type StoredSecretProvider = Exclude<SecretProvider, 'WEBHOOK'>;
/** How long a stored secret may be, trimmed: real ones are 30 to 80 characters. */
export const SECRET_MAX_LENGTH = 1024;

/** That a secret is stored, and since when: never its value. */
export interface SecretState {
  provider: StoredSecretProvider;
  updatedAt: number;
}

/**
 * A form's secrets: captcha secret keys and the Slack token people store, and the webhook signing
 * secret Formgate makes. Never returned by the API; FormService checks membership before each use.
 */
export class FormSecrets {
  /** The form's webhook signing secret: read on every webhook delivery. */
  private readonly webhookSecretRow = new PreparedQuery<{ formId: string }, { secret: string }>((db, { formId }) =>
    db.selectFrom('formSecrets').select('secret').where('formId', '=', formId).where('provider', '=', 'WEBHOOK'),
  );

  constructor(private readonly database: Database) {}

  /** Stores (or replaces) a secret of an existing form, as given. */
  async set(formId: string, provider: SecretProvider, secret: string): Promise<void> {
    if (!secret.trim()) throw validationError(['secret: must not be empty']);
    const form = await this.database.db.selectFrom('forms').select('id').where('id', '=', formId).executeTakeFirst();
    if (!form) throw new ProblemError('not_found', `Form ${formId} was not found.`);
    const now = Date.now();
    await this.database.db
      .insertInto('formSecrets')
      .values({ formId, provider, secret, createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.columns(['formId', 'provider']).doUpdateSet({ secret, updatedAt: now }))
      .execute();
  }

  /** Which secrets people stored and when each was last set: never the values. */
  async list(formId: string): Promise<SecretState[]> {
    const rows = await this.database.db
      .selectFrom('formSecrets')
      .select(['provider', 'updatedAt'])
      .where('formId', '=', formId)
      .where('provider', '!=', 'WEBHOOK')
      .execute();
    return rows.map((r) => ({ provider: r.provider as StoredSecretProvider, updatedAt: Number(r.updatedAt) }));
  }

  /** Stores a secret typed by a person: trimmed, 1 to 1024 characters without spaces. */
  async put(formId: string, provider: StoredSecretProvider, secret: string): Promise<void> {
    const problem = secretProblem(provider, secret);
    if (problem) throw validationError([`secret: ${problem}`], 'The secret was rejected.');
    await this.set(formId, provider, secret.trim());
  }

  /** Removes a stored secret; not the one the form uses (its captcha provider, or the Slack token while a channel is set). */
  async remove(form: { id: string; spamProtection: SpamProtection | null; slackChannel: string | null }, provider: StoredSecretProvider): Promise<void> {
    if (!SECRET_PROVIDERS.includes(provider)) throw new ProblemError('not_found', `There is no ${provider} secret.`);
    if (form.spamProtection === provider) {
      throw new ProblemError(
        'conflict',
        `The form requires ${provider} on every submission; choose another spam protection (or None) before removing its secret key.`,
      );
    }
    if (provider === 'SLACK' && form.slackChannel) {
      throw new ProblemError('conflict', 'The form posts to a Slack channel with this token; clear the Slack channel before removing it.');
    }
    await this.database.db.deleteFrom('formSecrets').where('formId', '=', form.id).where('provider', '=', provider).execute();
  }

  /** A new webhook signing secret replaces the old one: every webhook sent from now on is signed with it. */
  async rotateWebhookSecret(formId: string): Promise<string> {
    const secret = newWebhookSecret();
    await this.set(formId, 'WEBHOOK', secret);
    return secret;
  }

  /** The form's webhook signing secret, made on first use; `not_found` when there is no such form. */
  async webhookSecret(formId: string): Promise<string> {
    // Read first: every webhook delivery asks, and only the first one for a form makes the secret.
    const existing = await this.webhookSecretRow.executeTakeFirst(this.database.db, { formId });
    if (existing) return existing.secret;
    const form = await this.database.db.selectFrom('forms').select('id').where('id', '=', formId).executeTakeFirst();
    if (!form) throw new ProblemError('not_found', `Form ${formId} was not found.`);
    const now = Date.now();
    // Concurrent first uses agree: the first insert wins and everyone reads it back.
    await this.database.db
      .insertInto('formSecrets')
      .values({ formId, provider: 'WEBHOOK', secret: newWebhookSecret(), createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.columns(['formId', 'provider']).doNothing())
      .execute();
    const made = await this.webhookSecretRow.executeTakeFirst(this.database.db, { formId });
    if (!made) throw new ProblemError('not_found', `Form ${formId} was not found.`);
    return made.secret;
  }

  /** The providers with a stored secret (the webhook's included): a captcha may be required only with its key. */
  async providers(formId: string): Promise<Set<string>> {
    const rows = await this.database.db.selectFrom('formSecrets').select('provider').where('formId', '=', formId).execute();
    return new Set(rows.map((r) => r.provider));
  }
}

/** Why a secret cannot be stored, or null: the shape every provider's keys and Slack's tokens have. */
export function secretProblem(provider: string, secret: string): string | null {
  if (!SECRET_PROVIDERS.includes(provider as SecretProvider)) return `must be one of ${SECRET_PROVIDERS.join(', ')}`;
  const trimmed = secret.trim();
  if (trimmed.length === 0 || trimmed.length > SECRET_MAX_LENGTH) return `must be 1 to ${SECRET_MAX_LENGTH} characters`;
  if (/[\s\p{Cc}]/u.test(trimmed)) return 'must not contain spaces, line breaks or control characters';
  return null;
}
