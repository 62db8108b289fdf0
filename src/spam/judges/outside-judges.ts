import type { Logger } from 'pino';
import type { SpamdAddress } from '../../config/config.js';
import type { SpamJudgesConfig } from '../../config/spam-judges.js';
import type { Finding } from '../score-rules.js';
import { askAkismet } from './akismet.js';
import { disposableFindings } from './disposable-domains.js';
import type { JudgeAnswer, JudgeCounter, JudgedSubmission, JudgeName, JudgeSettings } from './judge.js';
import { MemorySameMessageLog, type SameMessageLog, sameMessageFindings } from './same-message.js';
import { askSpamAssassin } from './spamassassin.js';

export interface OutsideJudgesOptions {
  /** spamd (FORMGATE_SPAMD_URL); null: no form can ask SpamAssassin. */
  spamd: SpamdAddress | null;
  config: SpamJudgesConfig;
  /** Formgate's public address: Akismet's `blog` for a form that lists no allowed origin. */
  publicUrl: string;
  log: Pick<Logger, 'warn'>;
  /** Where the same-message signal counts: this process's memory by default, Redis with several instances. */
  sameMessages?: SameMessageLog;
  counter?: JudgeCounter | null;
  now?: () => number;
}

/** A judge that gave no verdict is logged at most this often, each line saying how many were left out. */
const WARN_EVERY_MS = 60_000;

/**
 * The outside judges of issue 40, item 4, each off until a form turns it on: SpamAssassin's spamd,
 * Akismet with the owner's key, disposable address domains, the same message from many addresses.
 * They run together within one budget; a judge that is slow, down or refuses adds no points, is
 * counted and logged, and never fails the submission.
 */
export class OutsideJudges {
  private readonly sameMessages: SameMessageLog;
  private readonly now: () => number;
  private readonly warned = new Map<JudgeName, { at: number; left: number }>();

  constructor(private readonly options: OutsideJudgesOptions) {
    this.sameMessages = options.sameMessages ?? new MemorySameMessageLog();
    this.now = options.now ?? Date.now;
  }

  /** Whether any judge would run for these settings: none does for a form that turned none on. */
  anyOn(settings: JudgeSettings): boolean {
    return (
      (settings.spamAssassin && this.options.spamd !== null) || settings.akismetKey !== null || settings.flagDisposableAddresses || settings.flagSameMessage
    );
  }

  /** The findings of the judges the form turned on, within the budget; never throws. `site` null: Formgate's public address. */
  async judge(settings: JudgeSettings, asked: Omit<JudgedSubmission, 'site'> & { site: string | null }): Promise<Finding[]> {
    if (!this.anyOn(settings)) return [];
    return this.judgeWithin(settings, { ...asked, site: asked.site ?? this.options.publicUrl });
  }

  private async judgeWithin(settings: JudgeSettings, submission: JudgedSubmission): Promise<Finding[]> {
    const { budgetMs, akismetUrl } = this.options.config;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<JudgeAnswer>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve({ findings: [], outcome: 'timeout', detail: `no answer within ${budgetMs} ms` });
      }, budgetMs);
    });
    const judges: [JudgeName, () => JudgeAnswer | Promise<JudgeAnswer>][] = [];
    const { spamd } = this.options;
    if (settings.flagDisposableAddresses) judges.push(['disposable', () => verdictOf(disposableFindings(submission.email))]);
    if (settings.flagSameMessage) {
      const at = this.now();
      judges.push([
        'same_message',
        async () => verdictOf(await sameMessageFindings(this.sameMessages, submission.formId, submission.fields, submission.visitorKey, at)),
      ]);
    }
    if (settings.spamAssassin && spamd) judges.push(['spamassassin', () => askSpamAssassin(spamd, submission, budgetMs)]);
    const key = settings.akismetKey;
    if (key !== null) judges.push(['akismet', () => askAkismet(akismetUrl, key, submission, abort.signal)]);
    try {
      const answers = await Promise.all(
        judges.map(async ([name, ask]) => {
          const answer = await Promise.race([
            Promise.resolve()
              .then(ask)
              .catch((error: unknown): JudgeAnswer => ({ findings: [], outcome: 'error', detail: (error as Error)?.message ?? String(error) })),
            expired,
          ]);
          this.report(name, answer, submission.formId);
          return answer.findings;
        }),
      );
      return answers.flat();
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }

  private report(judge: JudgeName, answer: JudgeAnswer, formId: string): void {
    this.options.counter?.spamJudged(judge, answer.outcome);
    if (answer.outcome === 'spam' || answer.outcome === 'ham') return;
    const now = this.now();
    const last = this.warned.get(judge);
    if (last && now - last.at < WARN_EVERY_MS) {
      last.left++;
      return;
    }
    this.warned.set(judge, { at: now, left: 0 });
    this.options.log.warn(
      { formId, judge, outcome: answer.outcome, detail: answer.detail, ...(last?.left ? { notLogged: last.left } : {}) },
      'spam judge gave no verdict; the submission was scored without it',
    );
  }
}

function verdictOf(findings: Finding[]): JudgeAnswer {
  return { findings, outcome: findings.length > 0 ? 'spam' : 'ham' };
}
