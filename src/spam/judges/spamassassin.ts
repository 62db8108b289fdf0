import { createTransport } from 'nodemailer';
import type { SpamdAddress } from '../../config/config.js';
import { askSpamd, SpamdError } from '../../mail/spamd.js';
import type { Finding } from '../score-rules.js';
import { type JudgeAnswer, type JudgedSubmission, sentText } from './judge.js';

/** spamd's score from which points are added, and the points; a score below zero takes a little off. */
export const SPAMASSASSIN_POINTS = { spam: { from: 5, points: 6 }, sure: { from: 10, points: 10 }, ham: { below: 0, points: -2 } } as const;

// NOTE: nodemailer builds the message only (no transport): headers encoded, lines folded, nothing a value holds can add a header.
const composer = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/**
 * Asks SpamAssassin's spamd about one submission, as a small e-mail: From the submitter's address
 * (none without one), the subject, the values as its text. Its score becomes points (SPAMASSASSIN_POINTS).
 */
export async function askSpamAssassin(spamd: SpamdAddress, submission: JudgedSubmission, timeoutMs: number): Promise<JudgeAnswer> {
  try {
    const verdict = await askSpamd(spamd, await submissionMessage(submission), { timeoutMs });
    const findings = spamAssassinFindings(verdict.score);
    return { findings, outcome: findings.some((finding) => finding.points > 0) ? 'spam' : 'ham' };
  } catch (error) {
    if (!(error instanceof SpamdError)) throw error;
    return { findings: [], outcome: /no answer within/.test(error.message) ? 'timeout' : 'error', detail: error.message };
  }
}

/** The points of spamd's score: none between 0 and 5. */
export function spamAssassinFindings(score: number): Finding[] {
  const { spam, sure, ham } = SPAMASSASSIN_POINTS;
  const points = score >= sure.from ? sure.points : score >= spam.from ? spam.points : score < ham.below ? ham.points : 0;
  return points === 0 ? [] : [{ points, reason: `SpamAssassin scored ${score}` }];
}

/** The RFC 5322 message spamd reads: only what the visitor sent, and a Date and Message-ID of Formgate's. */
export async function submissionMessage(submission: JudgedSubmission): Promise<Buffer> {
  const info = await composer.sendMail({
    ...(submission.email ? { from: submission.email } : {}),
    to: 'form@formgate.invalid',
    subject: submission.subject ?? 'Form submission',
    text: sentText(submission.fields),
    messageId: `<${submission.formId}.${Date.now()}@formgate.invalid>`,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return info.message as Buffer;
}
