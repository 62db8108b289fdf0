import type { ValidateFunction } from 'ajv';
import type { Form } from '../services/forms.js';
import { RETENTION_DAYS } from '../domain/retention.js';
import { ProblemError, validationError } from '../errors.js';
import { bodyAjv, describeValidation } from '../web/validation.js';
import { FormPatchBody } from '../schemas/form.js';
import { allowedOriginsOf, type FormSettings, notificationEmailsOf, retentionDaysProblem } from '../services/forms.js';
import { type BehaviourValues, behaviourPatch, behaviourValuesOf, readBehaviour } from './form-behaviour-input.js';
import { DEFAULT_FILE_UPLOADS } from '../domain/uploads.js';
import { type FileUploadsInput, uploadLimitsOf } from '../services/form-uploads.js';
import { spamJudgesOf } from '../services/spam-judge-settings.js';
import { SECTION_FIELDS, type SettingsSection } from './form-settings-sections.js';

const MB = 1024 * 1024;

/** The two lists of the settings page: each entry its own input, an extra one to add. */
export const SETTINGS_LISTS = ['notificationEmails', 'allowedOrigins'] as const;
export type SettingsList = (typeof SETTINGS_LISTS)[number];

/** The settings form as typed: what the page shows again when a change is refused or a list edited. */
export interface SettingsValues {
  name: string;
  description: string;
  technology: string;
  notificationEmails: string[];
  emailThreading: boolean;
  webhookUrl: string;
  slackChannel: string;
  customHoneypot: string;
  customSpamWords: string;
  spamProtection: string;
  /** The outside judges' switches were posted (a page without them leaves them as they are). */
  spamJudgesShown: boolean;
  spamAssassin: boolean;
  flagDisposableAddresses: boolean;
  flagSameMessage: boolean;
  allowedOrigins: string[];
  /** Days submissions are kept, as typed; empty: kept until deleted. */
  retentionDays: string;
  /** The File uploads panel was posted (a page without it leaves uploads as they are). */
  uploadsShown: boolean;
  uploadsEnabled: boolean;
  /** The limits in MB and the allowed types (separated by commas or spaces), as typed. */
  uploadMaxFileSizeMb: string;
  uploadMaxTotalSizeMb: string;
  uploadAllowedTypes: string;
  /** What the "Add" inputs hold. */
  adding: Record<SettingsList, string>;
  /** The behaviour panels (form-behaviour-input.ts); null when not posted. */
  behaviour: BehaviourValues | null;
}

/** What the page's buttons ask for: save everything, or add to or remove from a list and show the form again. */
export type SettingsAction = { kind: 'save' } | { kind: 'add'; list: SettingsList } | { kind: 'remove'; list: SettingsList; index: number };

/** The stored form as the page shows it. */
/** The stored form as the page shows it; `zone`: the viewer's, the closing time's (time-zone.ts). */
export function valuesOf(form: Form, zone = 'UTC'): SettingsValues {
  return {
    name: form.name,
    description: form.description ?? '',
    technology: form.technology ?? '',
    notificationEmails: notificationEmailsOf(form),
    emailThreading: form.emailThreading === 1,
    webhookUrl: form.webhookUrl ?? '',
    slackChannel: form.slackChannel ?? '',
    customHoneypot: form.customHoneypot ?? '',
    customSpamWords: form.customSpamWords ?? '',
    spamProtection: form.spamProtection ?? '',
    spamJudgesShown: true,
    ...spamJudgesOf(form),
    allowedOrigins: allowedOriginsOf(form),
    retentionDays: form.retentionDays === null ? '' : String(form.retentionDays),
    ...uploadValuesOf(form),
    adding: { notificationEmails: '', allowedOrigins: '' },
    behaviour: behaviourValuesOf(form, zone),
  };
}

/** A field posted once is a string, several times an array; anything else is nothing. */
function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === 'string');
}

const first = (value: unknown) => strings(value)[0] ?? '';
// a textarea's line breaks arrive as CRLF; the API's limits count what was typed
const text = (value: unknown) => first(value).replace(/\r\n?/g, '\n');

/** Reads the posted form. A list's emptied inputs drop out; what the "Add" input holds joins the list on save. */
export function readSettings(body: Record<string, unknown> | undefined, zone = 'UTC'): { values: SettingsValues; action: SettingsAction } {
  const b = body ?? {};
  const list = (name: SettingsList) =>
    strings(b[name])
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const values: SettingsValues = {
    name: first(b.name),
    description: text(b.description),
    technology: first(b.technology),
    notificationEmails: list('notificationEmails'),
    emailThreading: first(b.emailThreading) === 'on',
    webhookUrl: first(b.webhookUrl).trim(),
    slackChannel: first(b.slackChannel),
    customHoneypot: first(b.customHoneypot),
    customSpamWords: text(b.customSpamWords),
    spamProtection: first(b.spamProtection),
    spamJudgesShown: first(b.spamJudgesShown) === '1',
    spamAssassin: first(b.spamAssassin) === 'on',
    flagDisposableAddresses: first(b.flagDisposableAddresses) === 'on',
    flagSameMessage: first(b.flagSameMessage) === 'on',
    allowedOrigins: list('allowedOrigins'),
    retentionDays: first(b.retentionDays).trim(),
    uploadsShown: first(b.uploadsShown) === '1',
    uploadsEnabled: first(b.uploadsEnabled) === 'on',
    uploadMaxFileSizeMb: first(b.uploadMaxFileSizeMb).trim(),
    uploadMaxTotalSizeMb: first(b.uploadMaxTotalSizeMb).trim(),
    uploadAllowedTypes: text(b.uploadAllowedTypes).trim(),
    adding: { notificationEmails: first(b.addNotificationEmails).trim(), allowedOrigins: first(b.addAllowedOrigins).trim() },
    behaviour: readBehaviour(Object.fromEntries(Object.entries(b).map(([k, v]) => [k, strings(v)[0]])), zone),
  };
  return { values, action: actionOf(first(b.action)) };
}

function actionOf(action: string): SettingsAction {
  const match = /^(add|remove):(notificationEmails|allowedOrigins)(?::(\d{1,3}))?$/.exec(action);
  if (!match) return { kind: 'save' };
  const list = match[2] as SettingsList;
  return match[1] === 'add' ? { kind: 'add', list } : { kind: 'remove', list, index: Number(match[3] ?? -1) };
}

/** A list edited by an "Add" or "Remove" button: nothing is saved until "Save settings". */
export function editList(values: SettingsValues, action: Exclude<SettingsAction, { kind: 'save' }>): SettingsValues {
  const entries = [...values[action.list]];
  const adding = { ...values.adding };
  if (action.kind === 'add') {
    if (adding[action.list]) entries.push(adding[action.list]);
    adding[action.list] = '';
  } else {
    entries.splice(action.index, 1);
  }
  return { ...values, [action.list]: entries, adding };
}

/** The values with what the "Add" inputs hold moved into their lists: saving keeps what was typed there. */
export function withAdded(values: SettingsValues): SettingsValues {
  let result = values;
  for (const list of SETTINGS_LISTS) if (values.adding[list]) result = editList(result, { kind: 'add', list });
  return result;
}

let patchBody: ValidateFunction | null = null;

/** The days as typed: empty is off (null); anything else must be a whole number within RETENTION_DAYS. */
function retentionDaysOf(typed: string): number | null {
  if (typed === '') return null;
  const days = /^\d{1,6}$/.test(typed) ? Number(typed) : Number.NaN;
  if (retentionDaysProblem(days)) {
    const problem = `retentionDays: must be a whole number from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or empty to keep submissions until you delete them`;
    throw validationError([problem], 'The request body is invalid.');
  }
  return days;
}

/**
 * The settings as the API's PATCH body (an empty text is null, a cleared choice too), checked by the
 * API's own schema and validator: a refusal names the field and says what the API would say, every
 * problem at once. `section`: only that section's fields (form-settings-sections.ts); none: all of them.
 */
export function settingsPatch(values: SettingsValues, section: SettingsSection | null = null): FormSettings {
  const orNull = (value: string) => (value === '' ? null : value);
  const problems: string[] = [];
  // each part as typed; one that cannot be read adds its problems and nothing to the patch
  const part = (read: () => Partial<FormSettings>): Partial<FormSettings> => {
    try {
      return read();
    } catch (error) {
      const lines = error instanceof ProblemError ? error.extra.errors : undefined;
      if (!Array.isArray(lines)) throw error;
      problems.push(...(lines as string[]));
      return {};
    }
  };
  const full = {
    name: values.name,
    description: orNull(values.description),
    technology: orNull(values.technology),
    notificationEmails: values.notificationEmails,
    emailThreading: values.emailThreading,
    webhookUrl: orNull(values.webhookUrl),
    slackChannel: orNull(values.slackChannel),
    customHoneypot: orNull(values.customHoneypot),
    customSpamWords: orNull(values.customSpamWords),
    spamProtection: orNull(values.spamProtection),
    ...(values.spamJudgesShown
      ? { spamAssassin: values.spamAssassin, flagDisposableAddresses: values.flagDisposableAddresses, flagSameMessage: values.flagSameMessage }
      : {}),
    allowedOrigins: values.allowedOrigins,
    ...part(() => ({ retentionDays: retentionDaysOf(values.retentionDays) })),
    ...(values.uploadsShown ? part(() => ({ fileUploads: fileUploadsOf(values) })) : {}),
    ...(values.behaviour ? part(() => behaviourPatch(values.behaviour as BehaviourValues)) : {}),
  };
  const fields = section ? SECTION_FIELDS[section] : null;
  const patch = fields ? Object.fromEntries(Object.entries(full).filter(([key]) => fields.includes(key))) : full;
  const own = fields ? problems.filter((line) => fields.some((field) => /^[.:[]/.test(line.slice(field.length)) && line.startsWith(field))) : problems;
  patchBody ??= bodyAjv().compile(FormPatchBody);
  if (!patchBody(patch)) own.push(...describeValidation(patchBody.errors ?? []));
  if (own.length) throw validationError(own, 'The request body is invalid.');
  return patch as FormSettings;
}

/** The File uploads panel's values of a stored form: its limits shown in MB even while uploads are off. */
function uploadValuesOf(
  form: Form,
): Pick<SettingsValues, 'uploadsShown' | 'uploadsEnabled' | 'uploadMaxFileSizeMb' | 'uploadMaxTotalSizeMb' | 'uploadAllowedTypes'> {
  const limits = uploadLimitsOf(form);
  return {
    uploadsShown: true,
    uploadsEnabled: form.uploadsEnabled === 1,
    uploadMaxFileSizeMb: inMegabytes(limits.maxFileSize),
    uploadMaxTotalSizeMb: inMegabytes(limits.maxTotalSize),
    uploadAllowedTypes: limits.allowedTypes.join(', '),
  };
}

/** Bytes as MB for an input: whole, or to two decimals. */
export function inMegabytes(bytes: number): string {
  return String(Math.round((bytes / MB) * 100) / 100);
}

/** The panel as `fileUploads`: off is null; on, the typed limits (the service checks them against the plan's ceilings). */
function fileUploadsOf(values: SettingsValues): FileUploadsInput | null {
  if (!values.uploadsEnabled) return null;
  const problems: string[] = [];
  const bytesOf = (typed: string, key: 'maxFileSize' | 'maxTotalSize') => {
    if (typed === '') return DEFAULT_FILE_UPLOADS[key];
    if (!/^\d{1,7}(\.\d{1,2})?$/.test(typed) || Number(typed) <= 0) {
      problems.push(`fileUploads.${key}: must be a number of MB above 0, such as 10 or 2.5`);
      return 0;
    }
    return Math.round(Number(typed) * MB);
  };
  const limits = {
    maxFileSize: bytesOf(values.uploadMaxFileSizeMb, 'maxFileSize'),
    maxTotalSize: bytesOf(values.uploadMaxTotalSizeMb, 'maxTotalSize'),
    allowedTypes: values.uploadAllowedTypes === '' ? [...DEFAULT_FILE_UPLOADS.allowedTypes] : values.uploadAllowedTypes.split(/[\s,]+/).filter((t) => t !== ''),
  };
  if (problems.length) throw validationError(problems, 'The request body is invalid.');
  // the defaults as typed stay "the defaults", so that they follow a later release's
  const same = limits.maxFileSize === DEFAULT_FILE_UPLOADS.maxFileSize && limits.maxTotalSize === DEFAULT_FILE_UPLOADS.maxTotalSize;
  return same && limits.allowedTypes.join(' ') === DEFAULT_FILE_UPLOADS.allowedTypes.join(' ') ? {} : limits;
}
