import { validationError } from '../errors.js';
import { FORM_BEHAVIOUR_TEXTS, type FormBehaviourInput, MAX_SUBMISSIONS_MAX } from '../services/form-behaviour.js';
import type { Form } from '../services/forms.js';
import { localInputOf, msOfLocalInput } from './time-zone.js';

/** The behaviour panels' inputs as typed (named as the API's fields, so a refusal lands beside its input). */
export interface BehaviourValues {
  redirectUrl: string;
  thanksTitle: string;
  thanksMessage: string;
  notificationSubject: string;
  notificationFromName: string;
  autoresponseSubject: string;
  autoresponseFromName: string;
  /** `YYYY-MM-DDTHH:MM` in `zone` (a datetime-local input); empty: never. */
  closesAt: string;
  maxSubmissions: string;
  /** The viewer's time zone, the closing time's (time-zone.ts). */
  zone: string;
}

/** The stored form as the panels show it. */
export function behaviourValuesOf(form: Form, zone: string): BehaviourValues {
  return {
    redirectUrl: form.redirectUrl ?? '',
    thanksTitle: form.thanksTitle ?? '',
    thanksMessage: form.thanksMessage ?? '',
    notificationSubject: form.notificationSubject ?? '',
    notificationFromName: form.notificationFromName ?? '',
    autoresponseSubject: form.autoresponseSubject ?? '',
    autoresponseFromName: form.autoresponseFromName ?? '',
    closesAt: form.closesAt === null ? '' : localInputOf(form.closesAt, zone),
    maxSubmissions: form.maxSubmissions === null ? '' : String(form.maxSubmissions),
    zone,
  };
}

/** The panels' inputs of a posted settings form; null when the page did not hold them (then nothing of them changes). */
export function readBehaviour(body: Record<string, unknown>, zone: string): BehaviourValues | null {
  if (body.behaviourShown !== '1') return null;
  const text = (name: string) => {
    const value = body[name];
    return typeof value === 'string' ? value.replace(/\r\n?/g, '\n') : '';
  };
  return {
    redirectUrl: text('redirectUrl').trim(),
    thanksTitle: text('thanksTitle'),
    thanksMessage: text('thanksMessage'),
    notificationSubject: text('notificationSubject'),
    notificationFromName: text('notificationFromName'),
    autoresponseSubject: text('autoresponseSubject'),
    autoresponseFromName: text('autoresponseFromName'),
    closesAt: text('closesAt').trim(),
    maxSubmissions: text('maxSubmissions').trim(),
    zone,
  };
}

/** The panels as the API's fields: empty is null (the default); the date and the cap read as typed, a bad one named. */
export function behaviourPatch(values: BehaviourValues): FormBehaviourInput {
  const patch: FormBehaviourInput = {};
  for (const key of FORM_BEHAVIOUR_TEXTS) patch[key] = values[key].trim() === '' ? null : values[key];
  const problems: string[] = [];
  if (values.closesAt === '') patch.closesAt = null;
  else {
    const at = msOfLocalInput(values.closesAt, values.zone);
    if (Number.isFinite(at)) patch.closesAt = new Date(at).toISOString();
    else problems.push(`closesAt: must be a date and time (${values.zone}), or empty to keep the form open`);
  }
  if (values.maxSubmissions === '') patch.maxSubmissions = null;
  else if (/^\d{1,9}$/.test(values.maxSubmissions) && Number(values.maxSubmissions) >= 1 && Number(values.maxSubmissions) <= MAX_SUBMISSIONS_MAX) {
    patch.maxSubmissions = Number(values.maxSubmissions);
  } else problems.push(`maxSubmissions: must be a whole number of submissions from 1 to ${MAX_SUBMISSIONS_MAX}, or empty for no cap`);
  if (problems.length) throw validationError(problems, 'The request body is invalid.');
  return patch;
}
