import { FORM_BEHAVIOUR_KEYS } from '../domain/form-behaviour.js';
// What an import accepts of another server's answers (formgate import): the source is not trusted,
// so every Workspace, Form and Submission it sends is checked against the limits of the spec (2.2
// to 2.4, section 8) before anything is written, and a bad one is skipped with the reason why.
import { type FormBehaviourInput, formBehaviourProblems } from './form-behaviour.js';
import { SPAM_PROTECTIONS, type SpamProtection } from '../domain/captcha-providers.js';
import { originProblem } from '../net/origin.js';
import type { OutboundGuard } from '../net/outbound-guard.js';
import { fileUploadsProblems, type FileUploadsInput } from './form-uploads.js';
import { formNameProblem, retentionDaysProblem, type FormSettings } from './forms.js';
import { SPAM_JUDGE_KEYS, type SpamJudgeKey } from './spam-judge-settings.js';

/** Ids are kept as they are: an HTML form posts to {submit_url}/<id>, so only URL-safe characters. */
const ID_SHAPE = /^[A-Za-z0-9._~-]{1,128}$/;
// as strings: what the source sends is any text
const SPAM_PROTECTION: readonly string[] = SPAM_PROTECTIONS;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;
// fields nest this deep at most (a walk of the data stays far from the stack's limit)
const MAX_DEPTH = 32;

export interface CheckedWorkspace {
  id: string;
  name: string;
  plan: string;
  createdAt: number;
  updatedAt: number;
}

/** A form's settings as stored here, and what of the source's could not be kept (for the operator). */

export interface CheckedForm {
  id: string;
  workspaceId: string;
  createdAt: number;
  updatedAt: number;
  // NOTE: the outside spam judges stay off on an import, as its CAPTCHA does: turning one on sends data away, the owner's choice here
  settings: Required<Omit<FormSettings, 'spamProtection' | keyof FormBehaviourInput | SpamJudgeKey>>;
  /** Formgate's own additions of issue 29 (redirect, wording, state) that the source showed and that pass the rules; the rest start at the defaults. */
  behaviour: FormBehaviourInput;
  /** The CAPTCHA the source asks for: set here only once its secret key is stored (it never travels). */
  spamProtection: SpamProtection | null;
  /** Whether the source shows `allowedOrigins` (another Formgate does, the hosted service does not). */
  showsOrigins: boolean;
  /** The source shows `retentionDays` (another Formgate): only then is a difference worth naming. */
  showsRetention: boolean;
  /** The source shows `fileUploads` (another Formgate): only then is it taken, or a difference named. */
  showsFileUploads: boolean;
  dropped: string[];
}

export interface CheckedSubmission {
  id: string;
  data: Record<string, unknown>;
  createdAt: number;
}

type Problem = { problem: string };

export function checkWorkspace(raw: unknown): CheckedWorkspace | Problem {
  if (!isObject(raw)) return { problem: 'not an object' };
  const { id, name, plan } = raw;
  if (!isId(id)) return { problem: 'id: missing or not URL-safe (1 to 128 characters)' };
  if (!isText(name, 1, 128)) return { problem: `workspace ${id}: name must be 1 to 128 characters` };
  if (typeof plan !== 'string') return { problem: `workspace ${id}: plan missing` };
  return { id, name, plan, createdAt: timeOf(raw.createdAt), updatedAt: timeOf(raw.updatedAt) };
}

/** The form's settings within the limits of 2.3; a setting this installation refuses is dropped and named. */
export function checkForm(raw: unknown, outbound: Pick<OutboundGuard, 'urlProblem'>): CheckedForm | Problem {
  if (!isObject(raw)) return { problem: 'not an object' };
  const { id } = raw;
  if (!isId(id)) return { problem: 'id: missing or not URL-safe (1 to 128 characters)' };
  if (typeof raw.name !== 'string' || formNameProblem(raw.name)) return { problem: `form ${id}: name must be 1 to 128 characters` };
  if (typeof raw.workspaceId !== 'string') return { problem: `form ${id}: workspaceId missing` };
  const dropped: string[] = [];
  const text = (field: string, max: number): string | null => {
    const value = raw[field];
    if (value === null || value === undefined) return null;
    if (isText(value, 0, max)) return value;
    dropped.push(`${field} (not a text of at most ${max} characters)`);
    return null;
  };
  const emails = list(raw.notificationEmails).filter((email) => {
    if (isText(email, 3, 128) && EMAIL_SHAPE.test(email)) return true;
    dropped.push(`notificationEmails: ${JSON.stringify(email)} (not an e-mail address)`);
    return false;
  });
  const origins = list(raw.allowedOrigins).filter((origin) => {
    if (typeof origin === 'string' && !origin.includes('\u0000') && originProblem(origin) === null) return true;
    dropped.push(`allowedOrigins: ${JSON.stringify(origin)} (not an origin)`);
    return false;
  });
  let webhookUrl = text('webhookUrl', 512);
  const webhookProblem = webhookUrl ? outbound.urlProblem(webhookUrl) : null;
  if (webhookProblem) {
    dropped.push(`webhookUrl ${webhookUrl} (${webhookProblem})`);
    webhookUrl = null;
  }
  // Formgate's own addition (issue 27): the hosted service does not show it
  let retentionDays: number | null = null;
  if (raw.retentionDays !== undefined && raw.retentionDays !== null) {
    const problem = typeof raw.retentionDays === 'number' ? retentionDaysProblem(raw.retentionDays) : 'not a number';
    if (problem === null) retentionDays = raw.retentionDays as number;
    else dropped.push(`retentionDays ${JSON.stringify(raw.retentionDays)} (${problem})`);
  }
  // Formgate's own addition (issue 28): checked within the largest plan's ceilings here, capped to
  // the importing workspace's when the form is written (imports.ts)
  let fileUploads: FileUploadsInput | null = {};
  if (raw.fileUploads === null) fileUploads = null;
  else if (raw.fileUploads !== undefined) {
    const problems = fileUploadsProblems(raw.fileUploads as FileUploadsInput, 'DEALIFY');
    if (problems.length === 0) fileUploads = raw.fileUploads as FileUploadsInput;
    else dropped.push(`fileUploads ${JSON.stringify(raw.fileUploads).slice(0, 200)} (${problems[0]})`);
  }
  // Formgate's own additions (issue 29): each kept when it passes the rules, else dropped with why
  const behaviour: Record<string, unknown> = {};
  for (const key of FORM_BEHAVIOUR_KEYS) {
    if (raw[key] === undefined) continue;
    const [problem] = formBehaviourProblems({ [key]: raw[key] } as FormBehaviourInput);
    if (problem === undefined) behaviour[key] = raw[key];
    else dropped.push(`${key} ${JSON.stringify(raw[key]).slice(0, 200)} (${problem.slice(key.length + 2)})`);
  }
  const spam = raw.spamProtection;
  const spamProtection = typeof spam === 'string' && SPAM_PROTECTION.includes(spam) ? (spam as SpamProtection) : null;
  if (spam != null && spamProtection === null) dropped.push(`spamProtection ${JSON.stringify(spam)} (unknown provider)`);
  for (const key of SPAM_JUDGE_KEYS)
    if (raw[key] === true) dropped.push(`${key} true (outside spam judges start off here: turn them on in the form's settings)`);
  return {
    id,
    workspaceId: raw.workspaceId,
    createdAt: timeOf(raw.createdAt),
    updatedAt: timeOf(raw.updatedAt),
    settings: {
      name: raw.name,
      description: text('description', 512),
      technology: text('technology', 128),
      notificationEmails: [...new Set(emails as string[])].slice(0, 100),
      emailThreading: raw.emailThreading === true,
      webhookUrl,
      slackChannel: text('slackChannel', 128),
      customHoneypot: text('customHoneypot', 128),
      customSpamWords: text('customSpamWords', 2560),
      allowedOrigins: [...new Set(origins as string[])].slice(0, 20),
      retentionDays,
      fileUploads,
    },
    spamProtection,
    showsOrigins: Array.isArray(raw.allowedOrigins),
    showsRetention: 'retentionDays' in raw,
    showsFileUploads: 'fileUploads' in raw,
    behaviour: behaviour as FormBehaviourInput,
    dropped,
  };
}

/** A submission of `formId` as 2.4 shows it: its id, its fields as an object, and when it arrived. */
export function checkSubmission(raw: unknown, formId: string): CheckedSubmission | Problem {
  if (!isObject(raw)) return { problem: 'not an object' };
  const { id, data } = raw;
  if (!isId(id)) return { problem: 'id: missing or not URL-safe (1 to 128 characters)' };
  if (raw.formId !== formId) return { problem: `submission ${id}: listed under form ${formId} but its formId is ${JSON.stringify(raw.formId)}` };
  if (!isObject(data) || unstorable(data, 0)) {
    return { problem: `submission ${id}: data is not an object of fields (or nests deeper than ${MAX_DEPTH}, or holds the character U+0000)` };
  }
  const createdAt = typeof raw.createdAt === 'string' ? Date.parse(raw.createdAt) : Number.NaN;
  if (!Number.isFinite(createdAt)) return { problem: `submission ${id}: createdAt is not an ISO 8601 date-time` };
  return { id, data, createdAt };
}

export function isProblem(value: object): value is Problem {
  return 'problem' in value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_SHAPE.test(value);
}

// PostgreSQL stores no U+0000 in text or jsonb
function isText(value: unknown, min: number, max: number): value is string {
  if (typeof value !== 'string' || value.includes('\u0000')) return false;
  const length = [...value].length;
  return length >= min && length <= max;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function timeOf(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? ms : Date.now();
}

/** Whether a name or value anywhere in `value` holds U+0000, or it nests deeper than intake lets a submission. */
function unstorable(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some((inner) => unstorable(inner, depth + 1));
  if (isObject(value)) return Object.entries(value).some(([key, inner]) => key.includes('\u0000') || unstorable(inner, depth + 1));
  return false;
}
