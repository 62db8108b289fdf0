/** A refusal the dashboard shows as a page of its own (a cross-site post, a link that expired). */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'PageError';
  }
}

export const CROSS_SITE_DETAIL =
  'This change did not come from a page of this site, or the page was open too long, so nothing was changed. Go back, reload the page and try again.';
