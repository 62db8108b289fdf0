import type { Logger } from 'pino';
import type { SpamProtection } from '../domain/captcha-providers.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { deliveryPlan } from '../jobs/submission-jobs.js';
import type { FormService } from '../services/forms.js';
import type { IntakeForm } from '../services/intake-forms.js';
import { closedReason, formClosed } from '../services/form-behaviour.js';
import { captchaFieldName, type CaptchaOutcome, verifyCaptcha } from '../spam/captcha.js';
import type { Altcha } from '../spam/altcha.js';
import type { CaptchaVerifyUrls } from '../domain/captcha-providers.js';
import { honeypotFilled, removeTrapField } from './honeypot.js';
import type { SpamScorer } from '../spam/score.js';
import type { OutsideJudges } from '../spam/judges/outside-judges.js';
import type { JudgeSettings } from '../spam/judges/judge.js';
import type { Finding, ScannedField } from '../spam/score-rules.js';
import { allowedOriginsOf } from '../services/forms.js';
import { compileSpamWords } from '../spam/spam-words.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { captchaAnswer, isEmpty, type ParsedSubmission } from './fields.js';
import { visitorKey } from './rate-limit.js';
import type { SubmissionWriter } from './writer.js';
import type { DroppedFile, UploadIntake, UploadSession } from './uploads.js';
import { SpamDropLog } from './spam-drop-log.js';

/** What the browser said of itself: Akismet reads them, nothing else does. */
export interface VisitorHeaders {
  userAgent?: string | null;
  referrer?: string | null;
}

/** What the visitor is told about a submission; `outcome` stays on the server. */
export interface ReceivedSubmission {
  id: string;
  formId: string;
  createdAt: number;
  data: Record<string, unknown>;
  outcome: SubmissionStatus | 'dropped' | 'spam_dropped';
  /** Files of the post that were not kept (uploads off, storage allowance used up): a JSON answer lists them. */
  droppedFiles?: DroppedFile[];
}

// What the notification email is made of, kept with the submission for its delivery.
const EMAIL_CONTROLS = ['_email.subject', '_email.from', '_email.replyto', '_replyto', '_email.template.title', '_email.template.footer'];

/**
 * Decides what happens to one submission, in the documented order: honeypot (dropped, success
 * shown), empty (refused), captcha (refused), spam words and the automatic filter (stored as spam),
 * then the quota (held past the allowance, refused past the held cap) as it is written.
 */
export class IntakePipeline {
  private readonly intakeForms: { get(formId: string): Promise<IntakeForm | undefined> };
  private readonly spamDrops = new SpamDropLog();

  constructor(
    private readonly forms: FormService,
    private readonly writer: SubmissionWriter,
    private readonly scorer: SpamScorer,
    /** The third parties' verify endpoints, and Formgate's own ALTCHA. */
    private readonly captcha: { urls: CaptchaVerifyUrls; altcha: Altcha },
    private readonly log: Logger,
    /** Where a multipart post's files go; without it, a file is refused. */
    private readonly uploads: UploadIntake | null = null,
    /** The outside spam judges a form may turn on; without them, none is asked. */
    private readonly judges: OutsideJudges | null = null,
  ) {
    // NOTE: callers share the looked-up form: it is read, never changed.
    this.intakeForms = forms.intakeForms();
  }

  /**
   * Before a multipart body is read: its form (admitted by the surface's checks), and the session
   * its files go to. Null when this pipeline takes no files.
   */
  async openUploads(formId: string, admit?: (form: IntakeForm) => void): Promise<UploadSession | null> {
    if (!this.uploads) return null;
    const form = await this.intakeForms.get(formId);
    if (!form) throw new ProblemError('not_found', `There is no form ${formId}; check the form's action address.`);
    admit?.(form);
    refuseClosed(form);
    return this.uploads.open(form);
  }

  /**
   * `admit`: the surface's own checks of the form (its allowed origins), before anything else is
   * decided. `uploads`: the post's files (openUploads, already admitted); removed unless it is stored.
   */
  async receive(
    formId: string,
    parsed: ParsedSubmission,
    ip: string,
    admit?: (form: IntakeForm) => void,
    uploads: UploadSession | null = null,
    visitor: VisitorHeaders = {},
  ): Promise<ReceivedSubmission> {
    if (!uploads) return this.decide(formId, parsed, ip, admit, null, visitor);
    try {
      const received = await this.decide(formId, parsed, ip, undefined, uploads, visitor);
      if (received.outcome === 'dropped' || received.outcome === 'spam_dropped') await uploads.discard();
      const droppedFiles = uploads.dropped();
      return droppedFiles.length > 0 ? { ...received, droppedFiles } : received;
    } catch (error) {
      await uploads.discard();
      throw error;
    }
  }

  private async decide(
    formId: string,
    parsed: ParsedSubmission,
    ip: string,
    admit: ((form: IntakeForm) => void) | undefined,
    uploads: UploadSession | null,
    visitor: VisitorHeaders,
  ): Promise<ReceivedSubmission> {
    const form = uploads?.form ?? (await this.intakeForms.get(formId));
    if (!form) throw new ProblemError('not_found', `There is no form ${formId}; check the form's action address.`);
    admit?.(form);
    refuseClosed(form);

    if (honeypotFilled(parsed, form.customHoneypot)) {
      // Awaited so the count is settled when the visitor is answered; a failed count drops nothing.
      await this.forms.countHoneypotDrop(form.id).catch((err: unknown) => this.log.error({ err, formId }, 'could not count a honeypot drop'));
      // The bot sees what a person would: an answer indistinguishable from success.
      return { id: newId(), formId, createdAt: Date.now(), data: parsed.data, outcome: 'dropped' };
    }
    removeTrapField(parsed, form.customHoneypot);
    if (isEmpty(parsed)) {
      const problem = Object.keys(parsed.data).length === 0 ? 'the submission has no fields; give each input a name' : 'every field is blank';
      throw validationError([`fields: ${problem}`], 'The submission is empty.');
    }
    if (form.spamProtection) await this.checkCaptcha(form, form.spamProtection, parsed, ip);

    const { spam, reasons: spamReasons } = await this.spamVerdict(form, parsed, ip, visitor);
    if (spam) this.log.info({ formId, reasons: spamReasons }, 'submission quarantined as spam');
    const stored = await this.writer
      .store({
        formId,
        workspaceId: form.workspaceId,
        data: parsed.data,
        emailControls: emailControlsOf(parsed.controls),
        spam,
        spamReasons,
        deliveries: deliveryPlan(form, submitterAddress(parsed) !== null, this.forms.plans),
        ...(form.maxSubmissions !== null ? { maxSubmissions: form.maxSubmissions } : {}),
        ...(uploads && uploads.files.length > 0 ? { files: uploads.files } : {}),
        ...(uploads?.reservation ? { fileReservation: uploads.reservation } : {}),
      })
      .catch((error: unknown) => {
        // past the allowance and the held submissions' cap: refused, and the operator can see why
        if (error instanceof ProblemError && error.code === 'quota_exceeded') {
          this.log.warn({ formId, workspaceId: form.workspaceId }, 'submission refused: the workspace holds all it may past its allowance');
        }
        throw error;
      });
    if (stored.spamDropped) {
      this.spamDrops.note(this.log, form.workspaceId, formId);
      // as for any spam: the visitor is answered as if it were kept
      return { id: stored.id, formId, createdAt: stored.createdAt, data: parsed.data, outcome: 'spam_dropped' };
    }
    return { id: stored.id, formId, createdAt: stored.createdAt, data: parsed.data, outcome: stored.status };
  }

  private async checkCaptcha(form: IntakeForm, provider: SpamProtection, parsed: ParsedSubmission, ip: string): Promise<void> {
    const token = captchaAnswer(parsed, captchaFieldName(provider));
    const outcome: CaptchaOutcome =
      provider === 'ALTCHA'
        ? await this.captcha.altcha.verify(form.id, token)
        : await verifyCaptcha(provider, { secret: form.captchaSecret, token, ip }, this.captcha.urls);
    if (outcome.ok) return;
    if (outcome.reason === 'unreachable') {
      this.log.warn({ formId: form.id, provider, detail: outcome.detail }, 'captcha provider unreachable');
      throw new ProblemError('upstream_unavailable', 'The CAPTCHA could not be checked right now; nothing was stored. Submit again in a moment.');
    }
    throw new ProblemError('captcha_failed', outcome.detail, {
      errors: [`${captchaFieldName(provider)}: ${outcome.reason === 'missing' ? 'is required' : 'did not verify'}`],
    });
  }

  /** Whether the submission is spam, and why or why not: custom spam words first, the owner's own rule, then the automatic filter. */
  private async spamVerdict(form: IntakeForm, parsed: ParsedSubmission, ip: string, visitor: VisitorHeaders): Promise<{ spam: boolean; reasons: string[] }> {
    const word = compileSpamWords(form.customSpamWords)?.firstMatch(parsed.data);
    if (word != null) return { spam: true, reasons: [`custom spam word "${word}"`] };
    const verdict = await this.scorer.score(parsed.data, visitorKey(ip), form.workspaceId, (fields) => this.outsideFindings(form, parsed, ip, visitor, fields));
    return { spam: verdict.spam, reasons: verdict.reasons };
  }

  /** What the judges the form turned on found (none: nothing is read or sent); they never fail the submission. */
  private async outsideFindings(form: IntakeForm, parsed: ParsedSubmission, ip: string, visitor: VisitorHeaders, fields: ScannedField[]): Promise<Finding[]> {
    const settings: JudgeSettings = {
      spamAssassin: form.spamAssassin === 1,
      akismetKey: form.akismetKey,
      flagDisposableAddresses: form.flagDisposableAddresses === 1,
      flagSameMessage: form.flagSameMessage === 1,
    };
    if (!this.judges?.anyOn(settings)) return [];
    return this.judges.judge(settings, {
      formId: form.id,
      fields,
      email: submitterAddress(parsed),
      name: textValue(parsed.data.name),
      subject: textValue(parsed.controls['_email.subject']) ?? textValue(parsed.data.subject),
      ip,
      visitorKey: visitorKey(ip),
      userAgent: visitor.userAgent ?? null,
      referrer: visitor.referrer ?? null,
      site: allowedOriginsOf(form)[0] ?? null,
    });
  }
}

/** A value that is one line of text (a name, a subject), or null. */
function textValue(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 256) : null;
}

/** A paused form, or one past its closing time, takes nothing (its cap is counted as the submission is written). Costs no query. */
function refuseClosed(form: IntakeForm): void {
  const reason = closedReason(form, Date.now());
  if (reason) throw formClosed(reason, form);
}

function emailControlsOf(controls: Record<string, string>): Record<string, string> | null {
  const kept: Record<string, string> = {};
  for (const name of EMAIL_CONTROLS) if (Object.hasOwn(controls, name)) kept[name] = controls[name]!;
  return Object.keys(kept).length > 0 ? kept : null;
}
