// A form's behaviour after a post (issue 29): the redirect, the thank-you page's wording, the emails'
// subjects and sender names, and its state (paused, closing at a date, capped). Checked here for the
// API and the dashboard alike; intake reads the state with the form (services/intake-forms.ts).
import type { Kysely } from 'kysely';
import type { FormRow, FormUpdate } from '../db/schema/form.js';
import type { DB } from '../db/schema/index.js';
import { ProblemError } from '../errors.js';
import { subjectTemplateProblems } from '../mail/subject-template.js';
import { httpUrl } from '../net/origin.js';

export {
  FORM_BEHAVIOUR_TEXTS,
  FROM_NAME_MAX,
  MAX_SUBMISSIONS_MAX,
  REDIRECT_URL_MAX,
  SUBJECT_MAX,
  THANKS_MESSAGE_MAX,
  THANKS_TITLE_MAX,
} from '../domain/form-behaviour.js';
import { FROM_NAME_MAX, MAX_SUBMISSIONS_MAX, REDIRECT_URL_MAX, SUBJECT_MAX, THANKS_MESSAGE_MAX, THANKS_TITLE_MAX } from '../domain/form-behaviour.js';

/** The behaviour's settings as the API names them. */
export interface FormBehaviourInput {
  redirectUrl?: string | null;
  thanksTitle?: string | null;
  thanksMessage?: string | null;
  notificationSubject?: string | null;
  notificationFromName?: string | null;
  autoresponseSubject?: string | null;
  autoresponseFromName?: string | null;
  paused?: boolean;
  /** ISO 8601 date-time; null: never. */
  closesAt?: string | null;
  maxSubmissions?: number | null;
}

const TEXT_KEYS = ['thanksTitle', 'thanksMessage', 'notificationSubject', 'notificationFromName', 'autoresponseSubject', 'autoresponseFromName'] as const;
const LIMITS: Record<(typeof TEXT_KEYS)[number], number> = {
  thanksTitle: THANKS_TITLE_MAX,
  thanksMessage: THANKS_MESSAGE_MAX,
  notificationSubject: SUBJECT_MAX,
  notificationFromName: FROM_NAME_MAX,
  autoresponseSubject: SUBJECT_MAX,
  autoresponseFromName: FROM_NAME_MAX,
};
/** The settings written with the placeholders of templates (`{{data.name}}`), filled in when sent (mail/subject-template.ts). */
const SUBJECT_KEYS: ReadonlySet<string> = new Set(['notificationSubject', 'autoresponseSubject']);
/** One line: a subject or a name with a line break or a control character is refused (mail/header-text.ts neutralises it again when sent). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing C0 and C1 controls is the point
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the message may hold line breaks and tabs, no other control
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Why the behaviour's settings cannot be stored, one sentence per field (each naming it); empty when they can. */
export function formBehaviourProblems(input: FormBehaviourInput): string[] {
  const problems: string[] = [];
  if (input.redirectUrl !== undefined && input.redirectUrl !== null) {
    const url = typeof input.redirectUrl === 'string' ? httpUrl(input.redirectUrl) : null;
    if (!url) problems.push('redirectUrl: must be an absolute http or https URL, such as https://example.com/thanks');
    else if (input.redirectUrl.length > REDIRECT_URL_MAX) problems.push(`redirectUrl: must be at most ${REDIRECT_URL_MAX} characters`);
    else if (url.username || url.password) problems.push('redirectUrl: must not hold a user name or password');
  }
  for (const key of TEXT_KEYS) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') problems.push(`${key}: must be text or null`);
    else if (value.trim() === '') problems.push(`${key}: must not be blank; leave it out (null) for the default`);
    else if ([...value].length > LIMITS[key]) problems.push(`${key}: must be at most ${LIMITS[key]} characters`);
    else if (key === 'thanksMessage' ? CONTROL.test(value) : NOT_ONE_LINE.test(value)) {
      problems.push(
        key === 'thanksMessage' ? `${key}: must not hold control characters` : `${key}: must be one line, without line breaks or control characters`,
      );
    } else if (SUBJECT_KEYS.has(key)) {
      // placeholders are filled in when sent: what a template may not hold, a subject may not either
      for (const problem of subjectTemplateProblems(value)) problems.push(`${key}: ${problem}`);
    }
  }
  if (input.paused !== undefined && typeof input.paused !== 'boolean') problems.push('paused: must be true or false');
  if (input.closesAt !== undefined && input.closesAt !== null) {
    const at = typeof input.closesAt === 'string' ? Date.parse(input.closesAt) : Number.NaN;
    if (!Number.isFinite(at)) problems.push('closesAt: must be a date and time such as 2030-01-31T18:00:00Z, or null for never');
  }
  const max = input.maxSubmissions;
  if (max !== undefined && max !== null && (!Number.isInteger(max) || max < 1 || max > MAX_SUBMISSIONS_MAX)) {
    problems.push(`maxSubmissions: must be a whole number from 1 to ${MAX_SUBMISSIONS_MAX}, or null for no cap`);
  }
  return problems;
}

/** The columns of the settings present in `input` (checked first). */
export function formBehaviourColumns(input: FormBehaviourInput): FormUpdate {
  const update: FormUpdate = {};
  if (input.redirectUrl !== undefined) update.redirectUrl = input.redirectUrl;
  for (const key of TEXT_KEYS) {
    const value = input[key];
    if (value !== undefined) update[key] = value === null ? null : value.trim();
  }
  if (input.paused !== undefined) update.paused = input.paused ? 1 : 0;
  if (input.closesAt !== undefined) update.closesAt = input.closesAt === null ? null : Date.parse(input.closesAt);
  if (input.maxSubmissions !== undefined) update.maxSubmissions = input.maxSubmissions;
  return update;
}

/** The Form resource's behaviour fields. */
export function formBehaviourOf(form: FormRow) {
  return {
    redirectUrl: form.redirectUrl,
    thanksTitle: form.thanksTitle,
    thanksMessage: form.thanksMessage,
    notificationSubject: form.notificationSubject,
    notificationFromName: form.notificationFromName,
    autoresponseSubject: form.autoresponseSubject,
    autoresponseFromName: form.autoresponseFromName,
    paused: form.paused === 1,
    closesAt: form.closesAt === null ? null : new Date(form.closesAt).toISOString(),
    maxSubmissions: form.maxSubmissions,
  };
}

/** Why a form takes no submission now: paused by its owner, past its closing time, or holding its cap. */
export type ClosedReason = 'paused' | 'closed' | 'full';

/** What decides whether a form is open, as intake and the dashboard read it. */
export interface FormState {
  paused: number;
  closesAt: number | null;
  maxSubmissions: number | null;
}

/** Why the form is closed at `now` without counting (paused, past its date); null when those leave it open. */
export function closedReason(form: FormState, now: number): Exclude<ClosedReason, 'full'> | null {
  if (form.paused === 1) return 'paused';
  if (form.closesAt !== null && now >= form.closesAt) return 'closed';
  return null;
}

/** The form's state for a person: open, or why not (the cap needs the form's count). */
export function formStateOf(form: FormState, taken: number | null, now = Date.now()): ClosedReason | 'open' {
  const reason = closedReason(form, now);
  if (reason) return reason;
  if (form.maxSubmissions !== null && taken !== null && taken >= form.maxSubmissions) return 'full';
  return 'open';
}

/** The submit surface's honest refusal of a closed form: nothing was stored. `reason` tells a client which rule closed it. */
export function formClosed(reason: ClosedReason, form: FormState): ProblemError {
  const detail =
    reason === 'paused'
      ? 'This form is paused by its owner and takes no submissions for now; nothing was stored.'
      : reason === 'closed'
        ? `This form closed on ${new Date(form.closesAt ?? 0).toISOString()} and takes no more submissions; nothing was stored.`
        : `This form has received the ${form.maxSubmissions} submissions it takes and is closed; nothing was stored.`;
  const extra: Record<string, unknown> = { reason };
  if (reason === 'closed' && form.closesAt !== null) extra.closesAt = new Date(form.closesAt).toISOString();
  if (reason === 'full') extra.maxSubmissions = form.maxSubmissions;
  return new ProblemError('form_closed', detail, extra);
}

/** What a form is now, as its pages say it. */
export type FormStateName = ClosedReason | 'open';

/**
 * The states of `forms`: paused and closed from their rows; the capped ones among the open counted
 * in one query (the sum of their day counts, as intake counts them). Forms without a cap cost nothing.
 */
export async function formStates(db: Kysely<DB>, forms: readonly (FormState & { id: string })[], now = Date.now()): Promise<Map<string, FormStateName>> {
  const states = new Map<string, FormStateName>();
  const capped: string[] = [];
  for (const form of forms) {
    const reason = closedReason(form, now);
    states.set(form.id, reason ?? 'open');
    if (!reason && form.maxSubmissions !== null) capped.push(form.id);
  }
  if (capped.length === 0) return states;
  const rows = await db
    .selectFrom('dailyCounts')
    .select(['formId', (eb) => eb.fn.sum<number | string>('accepted').as('taken')])
    .where('formId', 'in', capped)
    .groupBy('formId')
    .execute();
  const taken = new Map(rows.map((row) => [row.formId, Number(row.taken)]));
  for (const form of forms) if (capped.includes(form.id)) states.set(form.id, formStateOf(form, taken.get(form.id) ?? 0, now));
  return states;
}
