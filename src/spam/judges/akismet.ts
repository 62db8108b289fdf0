import { type JudgeAnswer, type JudgedSubmission, sentText } from './judge.js';

/** Points when Akismet says spam; when it also says to discard it unseen (`X-akismet-pro-tip: discard`), spam whatever else is found. */
export const AKISMET_POINTS = { spam: 8, blatant: 10 } as const;

// "true", "false", "invalid" and a short error: anything longer is not Akismet, and is not read further.
const MAX_ANSWER_BYTES = 1024;
// Values sent as the author and their address are not repeated in the comment's text.
const AUTHOR_FIELDS = new Set(['name', 'email', 'mail']);

/**
 * Asks Akismet's comment-check, with the form owner's own key, about one submission: the fields its
 * documentation lists for a contact form, nothing else. `signal` ends the request at the budget.
 */
export async function askAkismet(baseUrl: string, key: string, submission: JudgedSubmission, signal: AbortSignal): Promise<JudgeAnswer> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/comment-check`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'user-agent': 'Formgate | Akismet comment-check' },
      body: commentCheckBody(key, submission),
      redirect: 'error',
      signal,
    });
  } catch (error) {
    if (signal.aborted) return { findings: [], outcome: 'timeout', detail: 'no answer within the budget' };
    return { findings: [], outcome: 'error', detail: `could not be reached (${causeOf(error)})` };
  }
  const answer = (await firstBytes(response, MAX_ANSWER_BYTES)).trim();
  if (signal.aborted) return { findings: [], outcome: 'timeout', detail: 'no answer within the budget' };
  const help = response.headers.get('x-akismet-debug-help') ?? response.headers.get('x-akismet-alert-msg');
  if (response.status !== 200) return { findings: [], outcome: 'error', detail: `answered ${response.status}${help ? `: ${help.slice(0, 200)}` : ''}` };
  if (answer === 'invalid') return { findings: [], outcome: 'invalid_key', detail: `refused the form's API key${help ? `: ${help.slice(0, 200)}` : ''}` };
  if (answer === 'false') return { findings: [], outcome: 'ham' };
  if (answer !== 'true') return { findings: [], outcome: 'error', detail: `answered no verdict${help ? `: ${help.slice(0, 200)}` : ''}` };
  if (response.headers.get('x-akismet-pro-tip')?.trim().toLowerCase() === 'discard') {
    return { findings: [{ points: AKISMET_POINTS.blatant, reason: 'Akismet: blatant spam', decisive: true }], outcome: 'spam' };
  }
  return { findings: [{ points: AKISMET_POINTS.spam, reason: 'Akismet: spam' }], outcome: 'spam' };
}

/** comment-check's parameters (urlencoded): exactly these, each only when known. */
export function commentCheckBody(key: string, submission: JudgedSubmission): string {
  const params = new URLSearchParams({
    api_key: key,
    blog: submission.site,
    user_ip: submission.ip,
    comment_type: 'contact-form',
    blog_charset: 'UTF-8',
  });
  if (submission.userAgent) params.set('user_agent', submission.userAgent.slice(0, 512));
  if (submission.referrer) params.set('referrer', submission.referrer.slice(0, 2048));
  if (submission.name) params.set('comment_author', submission.name.slice(0, 256));
  if (submission.email) params.set('comment_author_email', submission.email);
  params.set(
    'comment_content',
    sentText(submission.fields, (field) => AUTHOR_FIELDS.has(field.key.toLowerCase())),
  );
  return params.toString();
}

/** The start of the answer's body as text, the rest left unread; '' when it fails. */
async function firstBytes(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    return '';
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? 'unknown';
}
