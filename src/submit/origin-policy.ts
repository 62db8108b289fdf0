import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../errors.js';
import { httpOriginOf, httpUrl } from '../net/origin.js';
import { allowedOriginsOf } from '../services/forms.js';
import type { IntakeForm } from '../services/intake-forms.js';

/** The controls that send the visitor somewhere: after a success, and after a failure. */
export type RedirectControl = '_redirect' | '_error';

/**
 * The longest `_redirect` / `_error` followed. It becomes the answer's Location header, and reverse
 * proxies refuse an answer whose headers pass a few KB (nginx's default buffer is 4 or 8 KB): the
 * submission would be stored and the visitor shown a 502.
 */
export const REDIRECT_MAX = 4_000;

/** A redirect control's target, or why it is ignored (logged; the submission is kept either way). */
export type RedirectChoice = { target: URL } | { ignored: string } | null;

/**
 * The site a browser says the post came from: `Origin`, else the origin of `Referer`; null when
 * neither names an http(s) origin (`Origin: null`, a client that sends neither).
 * NOTE: any non-browser client can write these headers, so they only tell what a browser did.
 */
export function postOriginOf(request: IncomingMessage): string | null {
  return httpOriginOf(request.headers.origin) ?? httpOriginOf(request.headers.referer);
}

/**
 * What a submission may ask of the form's owner's submit domain, decided from the form's allowed
 * origins, the site the submission came from and how it came (POST or GET): who may submit, where
 * its redirects may lead, and whether the built-in pages may show its `_feedback.*` wording and a
 * link back to it (docs/decisions.md, "Allowed origins" and "Hosted-service compatibility").
 */
export class OriginPolicy {
  private readonly allowed: string[];
  /** The owner's own redirect after success (its Settings), checked when saved. */
  private readonly ownRedirect: string | null;

  constructor(
    form: IntakeForm,
    private readonly postOrigin: string | null,
    private readonly method: 'POST' | 'GET' = 'POST',
  ) {
    this.allowed = allowedOriginsOf(form);
    this.ownRedirect = form.redirectUrl;
  }

  /** A list is set and the post came from a site on it: the owner vouches for what that page sends. */
  get vouched(): boolean {
    return this.postOrigin !== null && this.allowed.includes(this.postOrigin);
  }

  /** Refuses a submission from a site the form does not list, when it lists any. */
  admit(): void {
    if (this.allowed.length === 0 || this.vouched) return;
    // NOTE: the detail names no origin of the post: a browser shows it on the error page, and a host name can say anything
    const seen = this.postOrigin ? 'this one came from another site' : 'this one named no site (no Origin or Referer header)';
    throw new ProblemError('origin_not_allowed', `This form takes submissions only from the sites it lists; ${seen}. Nothing was stored.`);
  }

  /**
   * Where `_redirect` or `_error` may send the visitor. A POST's redirect reaches only the client that
   * posted, so any absolute http(s) URL will do (into the list when the form has one). A GET can be a
   * link in an email, so there it goes only back to the site it came from or into the list: the
   * owner's submit domain is no open redirector.
   */
  redirectOf(controls: Record<string, string>, name: RedirectControl): RedirectChoice {
    const value = controls[name]?.trim();
    if (!value) return null;
    if (value.length > REDIRECT_MAX) return { ignored: `longer than ${REDIRECT_MAX} characters` };
    const target = httpUrl(value);
    if (!target) return { ignored: 'not an absolute http or https URL' };
    if (this.allowed.length > 0) {
      return this.allowed.includes(target.origin) ? { target } : { ignored: "not on one of the form's allowed origins" };
    }
    if (this.method === 'POST' || target.origin === this.postOrigin) return { target };
    return { ignored: 'a GET submission redirects only back to the site it came from (Referer) or to one of the form’s allowed origins' };
  }

  /**
   * Where a success goes when the post gives no usable `_redirect`: the form's own redirect. The owner
   * set it, so it is trusted like the allowed origins they list: followed after a POST or a GET, with
   * or without a list (a link cannot make the submit domain lead anywhere the owner did not choose).
   */
  ownerRedirect(): URL | null {
    return httpUrl(this.ownRedirect);
  }

  /** The back link of a built-in page: the page the form was on, when the owner vouches for it. */
  backUrl(referer: string | undefined): string | null {
    const url = httpUrl(referer);
    return this.vouched && url && this.allowed.includes(url.origin) ? url.href : null;
  }
}
