import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

import type { SpamProtection, ThirdPartyCaptcha } from '../../domain/captcha-providers.js';
/**
 * WEBHOOK: the form's Standard Webhooks signing secret, made by Formgate (`formgate forms webhook-secret`). ALTCHA needs none (Formgate's own key).
 * AKISMET: the owner's Akismet API key; stored, the form asks Akismet about each submission (migration 0031's judges).
 */
export type SecretProvider = ThirdPartyCaptcha | 'SLACK' | 'WEBHOOK' | 'AKISMET';

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
  /** When the webhook was turned off because its receiver answered 410 Gone; null: on. Saving the webhook settings clears it (migration 0026). */
  webhookDisabledAt: Generated<number | null>;
  /** What turned it off, for the owner: the address and its answer. */
  webhookDisabledReason: Generated<string | null>;
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
  /** Where a browser goes after a successful post unless it sends `_redirect`; null: the thank-you page (migration 0022). */
  redirectUrl: Generated<string | null>;
  /** The built-in thank-you page's title and message; null: the defaults. */
  thanksTitle: Generated<string | null>;
  thanksMessage: Generated<string | null>;
  /** The notification's subject and sender name unless the post sends `_email.subject` / `_email.from`; null: the defaults. */
  notificationSubject: Generated<string | null>;
  notificationFromName: Generated<string | null>;
  /** The autoresponder's subject and sender name; null: the defaults. */
  autoresponseSubject: Generated<string | null>;
  autoresponseFromName: Generated<string | null>;
  /** 1: the form takes no submissions (an honest "closed" answer); 0: open. */
  paused: Generated<number>;
  /** Epoch ms from which the form is closed; null: never. */
  closesAt: Generated<number | null>;
  /** Accepted submissions after which the form is closed; null: no cap. */
  maxSubmissions: Generated<number | null>;
  /** JSON array of the form's chat channels (ChatChannel, domain/chat-channels.ts); null: none (text on SQLite, jsonb on PostgreSQL). */
  chatChannels: Generated<unknown>;
  /** 1: each submission is also scored by the instance's spamd (migration 0031); 0: not (the default). */
  spamAssassin: Generated<number>;
  /** 1: a submitter's address at a disposable e-mail service adds points; 0: not (the default). */
  flagDisposableAddresses: Generated<number>;
  /** 1: the same message from many client addresses within an hour is spam; 0: not (the default). */
  flagSameMessage: Generated<number>;
  /** The webhook's body (migration 0039, domain/webhook-body.ts): `json-template` or `urlencoded-template`; null or `json`: the flat JSON fields. */
  webhookBodyFormat: Generated<string | null>;
  /** The body template of those formats; null: none. */
  webhookBodyTemplate: Generated<string | null>;
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
