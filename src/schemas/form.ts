import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { SPAM_PROTECTIONS } from '../domain/captcha-providers.js';
import { RETENTION_DAYS } from '../domain/retention.js';
import { ALLOWED_TYPES_MAX, ALLOWED_TYPE_MAX_LENGTH, DEFAULT_FILE_UPLOADS } from '../domain/uploads.js';
import { FROM_NAME_MAX, MAX_SUBMISSIONS_MAX, REDIRECT_URL_MAX, SUBJECT_MAX, THANKS_MESSAGE_MAX, THANKS_TITLE_MAX } from '../domain/form-behaviour.js';
import { DateTime, IgnoredDateTime, NullableEnum, NullableString, PageOf, PageQuery } from './common.js';

/** How many origins a form may list, and how long one may be. */
export const ALLOWED_ORIGINS_MAX = 20;
const ORIGIN_MAX = 256;

const settings = {
  description: NullableString(Type.String({ maxLength: 512, description: 'At most 512 characters.' })),
  technology: NullableString(Type.String({ maxLength: 128, description: 'At most 128 characters.' })),
  notificationEmails: Type.Array(Type.String({ format: 'email', maxLength: 128 }), {
    maxItems: 100,
    uniqueItems: true,
    description:
      "Recipients of the notification email: up to 100 addresses of at most 128 characters. Sent on PATCH, it replaces the whole list. An address that is not a member of the workspace is emailed a link once and receives notifications only after it confirmed (unless the instance turns this off); its state is shown on the form's Settings page in the dashboard.",
  }),
  emailThreading: Type.Boolean({ description: 'Whether all notifications of the form share one email thread.' }),
  webhookUrl: NullableString(
    Type.String({ format: 'uri', maxLength: 512, description: 'http or https, at most 512 characters; must resolve to a public address when called.' }),
  ),
  slackChannel: NullableString(Type.String({ maxLength: 128, description: 'At most 128 characters.' })),
  customHoneypot: NullableString(Type.String({ maxLength: 128, description: 'Name of an extra honeypot field; at most 128 characters.' })),
  customSpamWords: NullableString(
    Type.String({ maxLength: 2560, description: 'Comma- or newline-separated words that mark a submission as spam; at most 2560 characters.' }),
  ),
  spamProtection: NullableEnum(
    SPAM_PROTECTIONS,
    'Captcha required on submit; a third-party provider is accepted only when its secret key is stored for the form. ' +
      '`ALTCHA` (an addition to the spec) is a proof-of-work CAPTCHA that Formgate serves and checks itself: it needs no secret key (docs/captcha.md). Null: no challenge.',
  ),
  spamAssassin: Type.Boolean({
    description:
      "An addition to the spec: each submission is also scored by the instance's SpamAssassin (`spamd`, which the operator sets up with FORMGATE_SPAMD_URL): " +
      "its values, subject and the submitter's address leave for spamd, and its score adds points (docs/spam-filter.md, Outside judges). " +
      'Without a spamd on the instance it has no effect. False (the default): not asked.',
  }),
  flagDisposableAddresses: Type.Boolean({
    description:
      "An addition to the spec: a submitter's address at a disposable e-mail service (a list kept in Formgate, nothing leaves the machine) adds 4 points. False (the default): not checked.",
  }),
  flagSameMessage: Type.Boolean({
    description:
      'An addition to the spec: the same message (its longest value, 40 characters or more, case and spacing ignored) sent to this form from 5 or more client addresses within an hour is spam from the fifth on. ' +
      'Leave it off for petitions and other forms where people send a shared text. False (the default): not checked.',
  }),
  allowedOrigins: Type.Array(Type.String({ minLength: 1, maxLength: ORIGIN_MAX }), {
    maxItems: ALLOWED_ORIGINS_MAX,
    uniqueItems: true,
    description:
      `The sites whose pages may post to the form: up to ${ALLOWED_ORIGINS_MAX} origins written as a browser sends them in \`Origin\` ` +
      '(`https://example.com`, `http://localhost:3000`: http or https, lowercase host, a port only when not the default, no path or trailing slash). ' +
      'When set, a submission from any other page is refused (`403 origin_not_allowed`), `_redirect` and `_error` must point into the list, ' +
      'and only then are `_feedback.*` wording and a link back to the form shown on the built-in pages. Empty (the default): any page may post. ' +
      'Sent on PATCH, it replaces the whole list.',
  }),
  retentionDays: Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    minimum: RETENTION_DAYS.min,
    maximum: RETENTION_DAYS.max,
    description:
      `An addition to the spec: how many days the form keeps its submissions (${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}). ` +
      'Every hour, submissions older than that (in the inbox, in the spam folder or held) are deleted for good, with their deliveries; this cannot be undone. ' +
      'Null (the default): submissions are kept until someone deletes them. Deleted submissions stay counted in the allowance and the day counts, as when deleted one by one.',
  }),
  fileUploads: Type.Unsafe<{ maxFileSize?: number; maxTotalSize?: number; allowedTypes?: string[] } | null>({
    type: ['object', 'null'],
    additionalProperties: false,
    properties: {
      maxFileSize: Type.Integer({ minimum: 1, description: `Bytes one file may have (default ${DEFAULT_FILE_UPLOADS.maxFileSize}, 10 MB).` }),
      maxTotalSize: Type.Integer({
        minimum: 1,
        description: `Bytes all the files of one submission may have together (default ${DEFAULT_FILE_UPLOADS.maxTotalSize}, 25 MB); at least maxFileSize.`,
      }),
      allowedTypes: Type.Array(Type.String({ minLength: 1, maxLength: ALLOWED_TYPE_MAX_LENGTH }), {
        minItems: 1,
        maxItems: ALLOWED_TYPES_MAX,
        description:
          'Extensions (`.pdf`) and content types (`application/pdf`, `image/*`); a file matching any one is accepted. ' +
          `Default: ${DEFAULT_FILE_UPLOADS.allowedTypes.join(' ')}.`,
      }),
    },
    description:
      'An addition to the spec: whether the form stores files posted as `multipart/form-data`, and its limits. ' +
      'Null: uploads off (a file part is dropped, the rest of the submission kept, and the owner sees why on the submission). ' +
      'An object: uploads on with these limits; sent on create or PATCH it replaces the limits whole, a key left out taking its default ' +
      '(`{}` turns uploads on at the defaults). Every form starts on at the defaults. ' +
      "The workspace's plan caps maxFileSize and maxTotalSize (FREE: 10 MB and 25 MB; upgraded: 100 MB and 250 MB); a value above is `400 validation_error` naming the field. " +
      'A file field of a submission holds `{ name, type, size, url }` (a list of them for several files); `url` is `GET /files/{fileId}`.',
  }),
  redirectUrl: NullableString(
    Type.String({
      maxLength: REDIRECT_URL_MAX,
      description:
        `An addition to the spec: where a browser goes after a successful post, instead of the built-in thank-you page (an absolute http or https URL, at most ${REDIRECT_URL_MAX} characters). ` +
        "Set by the owner, it is trusted as the owner's own: followed after a POST or a GET, whatever the allowed origins. A post's usable `_redirect` still wins for that submission. Null (the default): the thank-you page.",
    }),
  ),
  thanksTitle: NullableString(
    Type.String({
      maxLength: THANKS_TITLE_MAX,
      description: `An addition to the spec: the built-in thank-you page's title (plain text, at most ${THANKS_TITLE_MAX} characters). A vouched post's \`_feedback.success.title\` still wins. Null: the default, in the page's language.`,
    }),
  ),
  thanksMessage: NullableString(
    Type.String({
      maxLength: THANKS_MESSAGE_MAX,
      description: `An addition to the spec: the thank-you page's message (plain text, line breaks kept, at most ${THANKS_MESSAGE_MAX} characters). A vouched post's \`_feedback.success.message\` still wins. Null: the default.`,
    }),
  ),
  notificationSubject: NullableString(
    Type.String({
      maxLength: SUBJECT_MAX,
      description: `An addition to the spec: the notification email's subject (one line, at most ${SUBJECT_MAX} characters; template placeholders such as \`{{data.name}}\` are filled in as plain text). A post's \`_email.subject\` still wins. Null: "New submission: <form name>".`,
    }),
  ),
  notificationFromName: NullableString(
    Type.String({
      maxLength: FROM_NAME_MAX,
      description: `An addition to the spec: the notification's sender name (one line, at most ${FROM_NAME_MAX} characters; the address stays the instance's sender). A post's \`_email.from\` still wins. Null: the instance's.`,
    }),
  ),
  autoresponseSubject: NullableString(
    Type.String({
      maxLength: SUBJECT_MAX,
      description: `An addition to the spec: the autoresponder email's subject (one line, at most ${SUBJECT_MAX} characters; template placeholders such as \`{{data.name}}\` are filled in as plain text). Null: "We received your message" (never the form's name).`,
    }),
  ),
  autoresponseFromName: NullableString(
    Type.String({
      maxLength: FROM_NAME_MAX,
      description: `An addition to the spec: the autoresponder's sender name (one line, at most ${FROM_NAME_MAX} characters). Null: the host of the form's first allowed origin, else the instance's.`,
    }),
  ),
  paused: Type.Boolean({
    description:
      'An addition to the spec: a paused form takes no submissions: each is answered `403 form_closed` with `reason: "paused"`, nothing stored. False (the default): open.',
  }),
  closesAt: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date-time',
    description: 'An addition to the spec: from this time on the form takes no submissions (`403 form_closed`, `reason: "closed"`). Null (the default): never.',
  }),
  maxSubmissions: Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    minimum: 1,
    maximum: MAX_SUBMISSIONS_MAX,
    description:
      'An addition to the spec: once the form has received this many submissions that are not spam (accepted and held; deleting one does not give its place back), ' +
      'it takes no more (`403 form_closed`, `reason: "full"`). Exact under concurrent posts. Null (the default): no cap.',
  }),
};

const FormName = Type.String({ minLength: 1, maxLength: 128, description: '1 to 128 characters.' });

export const FormSchema = Type.Object(
  {
    id: Type.String({ description: 'What the HTML form posts to: {submit_url}/<id>.' }),
    name: Type.String(),
    description: settings.description,
    technology: settings.technology,
    workspaceId: Type.String(),
    notificationEmails: Type.Array(Type.String()),
    emailThreading: Type.Boolean(),
    webhookUrl: settings.webhookUrl,
    slackChannel: settings.slackChannel,
    customHoneypot: settings.customHoneypot,
    customSpamWords: settings.customSpamWords,
    spamProtection: settings.spamProtection,
    spamAssassin: settings.spamAssassin,
    flagDisposableAddresses: settings.flagDisposableAddresses,
    flagSameMessage: settings.flagSameMessage,
    allowedOrigins: Type.Array(Type.String(), { description: settings.allowedOrigins.description }),
    retentionDays: settings.retentionDays,
    fileUploads: settings.fileUploads,
    redirectUrl: settings.redirectUrl,
    thanksTitle: settings.thanksTitle,
    thanksMessage: settings.thanksMessage,
    notificationSubject: settings.notificationSubject,
    notificationFromName: settings.notificationFromName,
    autoresponseSubject: settings.autoresponseSubject,
    autoresponseFromName: settings.autoresponseFromName,
    paused: settings.paused,
    closesAt: settings.closesAt,
    maxSubmissions: settings.maxSubmissions,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Form' },
);

const optionalSettings = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, Type.Optional(v)])) as {
  [K in keyof typeof settings]: TOptional<(typeof settings)[K]>;
};

export const FormCreateBody = Type.Object({ workspaceId: Type.String({ minLength: 1 }), name: FormName, ...optionalSettings }, { additionalProperties: false });
export type FormCreateBody = Static<typeof FormCreateBody>;

/** The Form's read-only fields, accepted on PATCH so that a client can send back the Form it read. */
const sentBack = {
  id: Type.Optional(Type.String({ description: 'Read-only: may be sent back; must be the form’s id, as in the path.' })),
  workspaceId: Type.Optional(
    Type.String({ description: 'Read-only: may be sent back; must be the form’s workspace (a form cannot move to another workspace).' }),
  ),
  createdAt: IgnoredDateTime(),
  updatedAt: IgnoredDateTime(),
};

export const FormPatchBody = Type.Object(
  { name: Type.Optional(FormName), ...optionalSettings, ...sentBack },
  {
    additionalProperties: false,
    description:
      'Any subset of the settings and `name`. A Form read from the API may be sent back whole: its read-only fields are accepted (see each). Any other field is refused.',
  },
);
export type FormPatchBody = Static<typeof FormPatchBody>;

export const FormParams = Type.Object({ formId: Type.String({ minLength: 1 }) });
export const FormListQuery = Type.Object({ workspaceId: Type.String({ minLength: 1 }), ...PageQuery }, { additionalProperties: false });
export const FormPageSchema = PageOf(Type.Ref('Form'), 'A page of forms, newest first.');
