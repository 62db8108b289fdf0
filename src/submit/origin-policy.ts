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
    /**
     * The instance admin stands behind the form's workspace (domain/workspace-trust.ts): always, unless
     * sign-up is open. A stranger's list and settings put no words on the submit domain and send no
     * link's visitor elsewhere unasked (issue 38, item 11).
     */
    private readonly workspaceVouched = true,
  ) {
    this.allowed = allowedOriginsOf(form);
    this.ownRedirect = form.redirectUrl;
  }

  /** The post came from a site on the form's list. */
  private get listed(): boolean {
    return this.postOrigin !== null && this.allowed.includes(this.postOrigin);
  }

  /** A list is set, the post came from a site on it, and the admin stands behind the owner: the owner vouches for what that page sends. */
  get vouched(): boolean {
    return this.workspaceVouched && this.listed;
  }

  /** Refuses a submission from a site the form does not list, when it lists any. */
  admit(): void {
    if (this.allowed.length === 0 || this.listed) return;
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

  /**
   * A GET to a workspace nobody vouched for may be a link sent to anyone: its redirect to a site the
   * visitor did not come from is not followed but named, on a page of its own (the visitor decides).
   * A POST, or a GET back to the site it came from, goes as the spec says.
   */
  namesInstead(target: URL): boolean {
    return this.method === 'GET' && !this.workspaceVouched && target.origin !== this.postOrigin;
  }

  /**
   * The way back of a built-in page (thank-you, error): a link the visitor may follow, never a
   * redirect (issue 39, item 19). The page the form was on (its Referer, else its Origin) when the
   * form lists that site; a form that lists sites otherwise links to the first of them, when the
   * admin stands behind its workspace. A form that lists none links to the root of the site the post
   * came from: the page names its host beside the link, and no path of the post's rides on the
   * owner's submit domain (a site the owner never listed may be anyone's).
   */
  backUrl(referer: string | undefined): string | null {
    const came = visitorsPage(referer, this.postOrigin);
    if (came && this.allowed.includes(came.origin)) return came.href;
    if (this.allowed.length > 0) return this.workspaceVouched ? `${this.allowed[0]}/` : null;
    return came ? `${came.origin}/` : null;
  }
}

/** The page a browser says it posted from: its Referer, else the root of its Origin (http or https only); null when neither names one. */
function visitorsPage(referer: string | undefined, origin: string | null): URL | null {
  const url = httpUrl(referer) ?? httpUrl(origin ? `${origin}/` : null);
  if (!url) return null;
  // a Referer written by hand may carry credentials; a browser never sends them
  url.username = '';
  url.password = '';
  return url;
}
