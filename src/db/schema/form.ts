import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

import type { SpamProtection } from '../../domain/captcha-providers.js';
/** WEBHOOK: the form's Standard Webhooks signing secret, made by Formgate (`formgate forms webhook-secret`). */
export type SecretProvider = SpamProtection | 'SLACK' | 'WEBHOOK';

export interface FormTable {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  technology: string | null;
  /** JSON array of addresses (text on SQLite, jsonb on PostgreSQL). */
  notificationEmails: unknown;
  /** 0 or 1 on both dialects. */
  emailThreading: number;
  webhookUrl: string | null;
  slackChannel: string | null;
  customHoneypot: string | null;
  customSpamWords: string | null;
  spamProtection: SpamProtection | null;
  /** JSON array of origins (`https://example.com`) whose pages may post; empty: any (text on SQLite, jsonb on PostgreSQL). */
  allowedOrigins: Generated<unknown>;
  /** Submissions dropped by a filled honeypot: not stored, only counted. */
  honeypotDrops: Generated<number>;
  /** Days a submission is kept before the hourly retention deletes it; null: kept until deleted (migration 0020). */
  retentionDays: Generated<number | null>;
  /** 1: file parts are stored (the default, migration 0021); 0: dropped, the rest of the submission kept. */
  uploadsEnabled: Generated<number>;
  /** JSON of the form's own FileUploadLimits (domain/uploads.ts); null: the defaults (text on SQLite, jsonb on PostgreSQL). */
  uploadLimits: Generated<unknown>;
  createdAt: number;
  updatedAt: number;
}
export type FormRow = Selectable<FormTable>;
export type NewFormRow = Insertable<FormTable>;
export type FormUpdate = Updateable<FormTable>;

/** Dashboard-only secrets of a form (captcha secret keys, the Slack token); never returned by the API. */
export interface FormSecretTable {
  formId: string;
  provider: SecretProvider;
  secret: string;
  createdAt: number;
  updatedAt: number;
}
