import type { ValidateFunction } from 'ajv';
import type { Form } from '../services/forms.js';
import { RETENTION_DAYS } from '../domain/retention.js';
import { validationError } from '../errors.js';
import { bodyAjv, describeValidation } from '../web/validation.js';
import { FormPatchBody } from '../schemas/form.js';
import { allowedOriginsOf, type FormSettings, notificationEmailsOf, retentionDaysProblem } from '../services/forms.js';

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
  allowedOrigins: string[];
  /** Days submissions are kept, as typed; empty: kept until deleted. */
  retentionDays: string;
  /** What the "Add" inputs hold. */
  adding: Record<SettingsList, string>;
}

/** What the page's buttons ask for: save everything, or add to or remove from a list and show the form again. */
export type SettingsAction = { kind: 'save' } | { kind: 'add'; list: SettingsList } | { kind: 'remove'; list: SettingsList; index: number };

/** The stored form as the page shows it. */
export function valuesOf(form: Form): SettingsValues {
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
    allowedOrigins: allowedOriginsOf(form),
    retentionDays: form.retentionDays === null ? '' : String(form.retentionDays),
    adding: { notificationEmails: '', allowedOrigins: '' },
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
export function readSettings(body: Record<string, unknown> | undefined): { values: SettingsValues; action: SettingsAction } {
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
    allowedOrigins: list('allowedOrigins'),
    retentionDays: first(b.retentionDays).trim(),
    adding: { notificationEmails: first(b.addNotificationEmails).trim(), allowedOrigins: first(b.addAllowedOrigins).trim() },
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
    const problem = `retentionDays: must be a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or empty to keep submissions until you delete them`;
    throw validationError([problem], 'The request body is invalid.');
  }
  return days;
}

/**
 * The settings as the API's PATCH body (an empty text is null, a cleared choice too), checked by the
 * API's own schema and validator: a refusal names the field and says what the API would say.
 */
export function settingsPatch(values: SettingsValues): FormSettings {
  const orNull = (value: string) => (value === '' ? null : value);
  const patch = {
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
    allowedOrigins: values.allowedOrigins,
    retentionDays: retentionDaysOf(values.retentionDays),
  };
  patchBody ??= bodyAjv().compile(FormPatchBody);
  if (!patchBody(patch)) throw validationError(describeValidation(patchBody.errors ?? []), 'The request body is invalid.');
  return patch as FormSettings;
}
