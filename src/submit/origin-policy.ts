import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../errors.js';
import { httpOriginOf, httpUrl } from '../net/origin.js';
import { allowedOriginsOf, type IntakeForm } from '../services/forms.js';

const REDIRECT_CONTROLS = ['_redirect', '_error'] as const;

/**
 * The site a browser says the post came from: `Origin`, else the origin of `Referer`; null when
 * neither names an http(s) origin (`Origin: null`, a client that sends neither).
 * NOTE: any non-browser client can write these headers, so they only tell what a browser did.
 */
export function postOriginOf(request: IncomingMessage): string | null {
  return httpOriginOf(request.headers.origin) ?? httpOriginOf(request.headers.referer);
}

/**
 * What a post may ask of the form's owner's submit domain, decided from the form's allowed origins
 * and the site the post came from: who may post, where its redirects may lead, and whether the
 * built-in pages may show its `_feedback.*` wording and a link back to it (docs/decisions.md).
 */
export class OriginPolicy {
  private readonly allowed: string[];

  constructor(
    form: IntakeForm,
    private readonly postOrigin: string | null,
  ) {
    this.allowed = allowedOriginsOf(form);
  }

  /** A list is set and the post came from a site on it: the owner vouches for what that page sends. */
  get vouched(): boolean {
    return this.postOrigin !== null && this.allowed.includes(this.postOrigin);
  }

  /** Refuses a post from a site the form does not list (when it lists any), and redirect targets it may not use. */
  admit(controls: Record<string, string>): void {
    if (this.allowed.length > 0 && !this.vouched) {
      // NOTE: the detail names no origin of the post: a browser shows it on the error page, and a host name can say anything
      const seen = this.postOrigin ? 'this one came from another site' : 'this one named no site (no Origin or Referer header)';
      throw new ProblemError('origin_not_allowed', `This form takes submissions only from the sites it lists; ${seen}. Nothing was stored.`);
    }
    const errors: string[] = [];
    for (const name of REDIRECT_CONTROLS) {
      const value = controls[name];
      if (value === undefined || value === '') continue;
      const target = httpUrl(value);
      if (!target) errors.push(`${name}: must be an absolute http or https URL`);
      else if (!this.mayRedirectTo(target)) errors.push(`${name}: ${this.redirectRule()}`);
    }
    if (errors.length > 0) throw new ProblemError('validation_error', 'A redirect address of the form is not allowed.', { errors });
  }

  /** Where a redirect may lead: into the list when there is one, else back to the site the post came from. */
  mayRedirectTo(target: URL): boolean {
    return this.allowed.length > 0 ? this.allowed.includes(target.origin) : target.origin === this.postOrigin;
  }

  /** The back link of a built-in page: the page the form was on, when the owner vouches for it. */
  backUrl(referer: string | undefined): string | null {
    const url = httpUrl(referer);
    return this.vouched && url && this.allowed.includes(url.origin) ? url.href : null;
  }

  private redirectRule(): string {
    if (this.allowed.length > 0) return `must be on one of the form's allowed origins (${this.allowed.join(', ')})`;
    if (this.postOrigin === null)
      return "the post did not say which site it came from (no Origin or Referer header), so it may redirect only to one of the form's allowedOrigins";
    return `must be on the site the form was posted from (${this.postOrigin}); list other sites in the form's allowedOrigins`;
  }
}
