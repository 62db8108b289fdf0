import { Keyring, type MacShape } from '../keyring.js';
import { httpUrl } from '../net/origin.js';
import { supportedLanguage } from './languages/index.js';
import { REDIRECT_MAX } from './origin-policy.js';

/** What a thank-you page shows beyond the defaults: the owner's `_feedback.success.*` and the page the form was on. */
export interface ThankYouContent {
  title?: string;
  message?: string;
  dark?: boolean;
  backUrl?: string | null;
  /** The post's `_feedback.language`, when it named a supported one. */
  language?: string | null;
}

const PARAMS = { title: 't', message: 'm', dark: 'd', backUrl: 'b', expires: 'e', language: 'l' } as const;
/** How long a link shows its content: it is followed at once, by the browser that posted. */
export const THANK_YOU_LINK_TTL_MS = 10 * 60_000;
// NOTE: part of what is signed; links signed before the content was bound to its visitor show defaults.
const PURPOSE = 'thanks/2';

/**
 * Links to the built-in thank-you page `{submit_url}/<formId>/thanks`. Custom content travels in
 * the query, signed for the visitor who posted (their address, as rate limits count it) and for a
 * few minutes: anyone can post anything, so a link made for someone else, or kept for later, shows
 * only the defaults. The page also shows content only while the form still vouches for it.
 */
export class ThankYouLinks {
  private readonly keyring: Keyring;

  constructor(
    secret: Keyring | string,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = THANK_YOU_LINK_TTL_MS,
  ) {
    this.keyring = typeof secret === 'string' ? new Keyring(secret) : secret;
  }

  /** The link to send `visitor` to after a submission (the bare page when there is nothing to show). */
  build(submitUrl: string, formId: string, content: ThankYouContent, visitor: string): string {
    const query = new URLSearchParams();
    if (content.title) query.set(PARAMS.title, content.title);
    if (content.message) query.set(PARAMS.message, content.message);
    if (content.dark) query.set(PARAMS.dark, '1');
    // a Referer may be 16 KB; a back link that long would swell the Location header past what proxies pass
    if (content.backUrl && content.backUrl.length <= REDIRECT_MAX) query.set(PARAMS.backUrl, content.backUrl);
    const base = `${submitUrl}/${encodeURIComponent(formId)}/thanks`;
    const language = supportedLanguage(content.language);
    // the language alone says nothing of anyone's: it needs no signature
    if ([...query.keys()].length === 0) return language ? `${base}?${PARAMS.language}=${language}` : base;
    if (language) query.set(PARAMS.language, language);
    query.set(PARAMS.expires, String(Math.ceil((this.now() + this.ttlMs) / 1000)));
    query.set('s', this.keyring.sign(signed(formId, visitor, query), LINK_MAC));
    return `${base}?${query}`;
  }

  /**
   * The content of a link this service built for `visitor`, no older than its time to live; defaults
   * for anything else. Its wording only while the form lists its sites (`allowedOrigins`, as they are
   * now) and `vouched` (the admin stands behind the workspace); its way back while it is an http(s)
   * address and, when the form lists sites, on the list.
   */
  read(formId: string, query: URLSearchParams, visitor: string, allowedOrigins: string[], vouched = true): ThankYouContent {
    const language = supportedLanguage(query.get(PARAMS.language));
    const base: ThankYouContent = language ? { language } : {};
    const signature = query.get('s');
    if (!signature) return base;
    const unsigned = new URLSearchParams([...query].filter(([key]) => key !== 's'));
    if (!this.keyring.verify(signed(formId, visitor, unsigned), signature, LINK_MAC)) return base;
    if (!(Number(unsigned.get(PARAMS.expires)) * 1000 > this.now())) return base;
    const dark = unsigned.get(PARAMS.dark) === '1';
    const back = httpUrl(unsigned.get(PARAMS.backUrl));
    const backUrl = back && (allowedOrigins.length === 0 || allowedOrigins.includes(back.origin)) ? back.href : null;
    // wording is the owner's only while the form lists the sites it comes from
    if (allowedOrigins.length === 0 || !vouched) return backUrl ? { ...base, dark, backUrl } : { ...base, dark };
    return {
      ...base,
      title: unsigned.get(PARAMS.title) ?? undefined,
      message: unsigned.get(PARAMS.message) ?? undefined,
      dark,
      backUrl,
    };
  }
}

const LINK_MAC: MacShape = (digest) => digest.toString('base64url').slice(0, 22);

function signed(formId: string, visitor: string, query: URLSearchParams): string {
  return `${PURPOSE}\n${formId}\n${visitor}\n${query}`;
}
