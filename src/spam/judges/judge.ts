// What the outside judges share (issue 40, item 4): the submission as they read it, and how one
// judge's answer ended, for the logs and /metrics. Each judge's protocol is a file beside this one;
// outside-judges.ts runs the ones a form turned on.
import type { Finding, ScannedField } from '../score-rules.js';

/** The judges, as logs and the `judge` label of formgate_spam_judge_answers_total name them. */
export type JudgeName = 'spamassassin' | 'akismet' | 'disposable' | 'same_message';

/**
 * How one judge's answer ended: `spam` (points added), `ham` (none: it found nothing, or spoke for the
 * message), `timeout` (no answer within the budget), `invalid_key` (Akismet refused the form's key),
 * `error` (unreachable, refused, or an answer that is no verdict).
 */
export type JudgeOutcome = 'spam' | 'ham' | 'timeout' | 'invalid_key' | 'error';

/** Which judges a form turned on; all off by default. */
export interface JudgeSettings {
  spamAssassin: boolean;
  /** The owner's own Akismet API key; null: Akismet is not asked. */
  akismetKey: string | null;
  flagDisposableAddresses: boolean;
  flagSameMessage: boolean;
}

/** One submission as the judges read it: nothing here is logged. */
export interface JudgedSubmission {
  formId: string;
  /** Every value, normalised and within the scorer's reading budget (spam/score.ts `scannedFields`). */
  fields: ScannedField[];
  /** The submitter's address (`_replyto`, `email`, …), or null. */
  email: string | null;
  /** The `name` field, or null. */
  name: string | null;
  /** The subject the notification would carry (`_email.subject`, a `subject` field), or null. */
  subject: string | null;
  /** The client's address as the submit surface read it, and its key for counting (an IPv6 client by its /64). */
  ip: string;
  visitorKey: string;
  userAgent: string | null;
  referrer: string | null;
  /** The site the form is on (its first allowed origin) or Formgate's public address: Akismet's `blog`. */
  site: string;
}

/** One judge's findings and how its answer ended. */
export interface JudgeAnswer {
  findings: Finding[];
  outcome: JudgeOutcome;
  /** Why it gave no verdict (timeout, error, invalid key): for the log line, never the visitor's text. */
  detail?: string;
}

/** Where each answer is counted (metrics/metrics.ts); nothing when metrics are off. */
export interface JudgeCounter {
  spamJudged(judge: JudgeName, outcome: JudgeOutcome): void;
}

/** The most characters of the values any judge sends away: enough for any honest message. */
export const MAX_SENT_CHARS = 20_000;

/** The values as one text to send, one value after another, cut at MAX_SENT_CHARS. */
export function sentText(fields: ScannedField[], skip: (field: ScannedField) => boolean = () => false): string {
  let text = '';
  for (const field of fields) {
    if (skip(field)) continue;
    text += `${text === '' ? '' : '\n\n'}${field.text}`;
    if (text.length >= MAX_SENT_CHARS) break;
  }
  return text.slice(0, MAX_SENT_CHARS);
}
