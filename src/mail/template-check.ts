import { createTransport } from 'nodemailer';
import type { SpamdAddress } from '../config/config.js';
import { askSpamd } from './spamd.js';
import type { MailMessage } from './transport.js';
import { htmlToText } from './html-to-text.js';

/** Whether a template may send, and why not. */
export interface ContentVerdict {
  paused: boolean;
  reasons: string[];
}

/** Points at which an autoresponder template is paused (documented in docs/templates.md). */
export const PAUSE_THRESHOLD = 4;

// Marketing phrasing: what turns an acknowledgement into a campaign sent to strangers.
const MARKETING = [
  'limited time',
  'limited offer',
  'buy now',
  'order now',
  'act now',
  'click here',
  'special offer',
  'special promotion',
  'exclusive deal',
  'free gift',
  'discount',
  'coupon',
  'promo code',
  'unsubscribe',
  'winner',
  'congratulations',
  'best price',
  'lowest price',
  'risk free',
  'money back',
  "don't miss",
  'sale ends',
  'subscribe now',
  'call now',
];
const MARKETING_PATTERN = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${MARKETING.map((p) => p.replace(/[.*+?^${}()|[\]\\']/g, (c) => (c === "'" ? "['’]" : `\\${c}`)).replace(/ /g, '\\s+')).join('|')})(?![\\p{L}\\p{N}])`,
  'giu',
);
// NOTE: only from the first digit of a number: `\d+` tried from every digit of a long number was quadratic (262,144 digits: minutes)
const PERCENT_OFF = /(?<!\d)\d+\s*%\s*off\b/gi;
const URL_IN_TEXT = /\b(?:https?:\/\/|www\.)[^\s<>"']+/gi;
const SHOUTING = /\b[A-Z]{4,}(?:\s+[A-Z]{2,}){2,}\b/g;
const EXCLAIMING = /!{3,}/g;

/**
 * Scores an autoresponder template alone (no submission filled in): marketing phrasing, bare links
 * (an address shown as text, not a link with words), shouting and exclamation runs. At the
 * threshold the template is paused: it is stored but sends nothing until rewritten.
 */
export function checkAutoresponderContent(code: string): ContentVerdict {
  // NOTE: `[^{}]`, not `[^}]`: linear over code full of `{{` that never close (`\{{` compiles), where `[^}]*` scanned on from each
  const text = htmlToText(code.replace(/\{\{[^{}]*\}\}/g, ' '));
  const reasons: string[] = [];
  let score = 0;
  const marketing = new Set([...text.matchAll(MARKETING_PATTERN)].map((m) => m[0].toLowerCase().replace(/\s+/g, ' ')));
  const percentOff = text.match(PERCENT_OFF)?.length ?? 0;
  if (marketing.size + percentOff > 0) {
    score += 2 * (marketing.size + percentOff);
    reasons.push(`marketing phrasing: ${[...marketing, ...(percentOff ? ['% off'] : [])].join(', ')}`);
  }
  const bareLinks = text.match(URL_IN_TEXT)?.length ?? 0;
  if (bareLinks > 0) {
    score += PAUSE_THRESHOLD * bareLinks;
    reasons.push(`${bareLinks} bare link(s)`);
  }
  if (SHOUTING.test(text)) {
    score += 1;
    reasons.push('shouting (words in capitals)');
  }
  if (EXCLAIMING.test(text)) {
    score += 1;
    reasons.push('exclamation marks');
  }
  SHOUTING.lastIndex = 0;
  EXCLAIMING.lastIndex = 0;
  return { paused: score >= PAUSE_THRESHOLD, reasons };
}

/** The autoresponder as it would be sent, rendered with no submission filled in. */
export interface AutoresponderDraft {
  code: string;
  /** The email as the autoresponder would send it, to a stand-in submitter. */
  message: MailMessage;
}

/** The content check of an autoresponder write: the rules above, then spamd when one is configured. */
export interface AutoresponderChecker {
  /** Throws SpamdError when spamd is configured but gives no verdict. */
  check(draft: AutoresponderDraft): Promise<ContentVerdict>;
}

/** Checks with the rules alone when `spamd` is null; otherwise paused when either the rules or spamd say so. */
export function createAutoresponderChecker(options: { spamd: SpamdAddress | null; mailFrom: string }): AutoresponderChecker {
  const { spamd, mailFrom } = options;
  if (!spamd) return { check: async (draft) => checkAutoresponderContent(draft.code) };
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async check(draft) {
      const local = checkAutoresponderContent(draft.code);
      const verdict = await askSpamd(spamd, await draftMessage(composer, mailFrom, draft));
      if (!verdict.spam) return local;
      const rules = verdict.symbols.length > 0 ? ` (${verdict.symbols.join(', ')})` : '';
      return { paused: true, reasons: [...(local.paused ? local.reasons : []), `spamd: ${verdict.score} / ${verdict.threshold}${rules}`] };
    },
  };
}

/** The RFC 5322 message the autoresponder would send, with the headers the delivery channel adds. */
async function draftMessage(composer: ReturnType<typeof createTransport>, from: string, draft: AutoresponderDraft): Promise<Buffer> {
  const info = await composer.sendMail({
    from,
    to: draft.message.to,
    subject: draft.message.subject,
    html: draft.message.html,
    text: draft.message.text,
    headers: draft.message.headers,
  });
  return info.message as Buffer;
}
