import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a thank-you page shows beyond the defaults: the visitor's `_feedback.success.*` and where they came from. */
export interface ThankYouContent {
  title?: string;
  message?: string;
  dark?: boolean;
  backUrl?: string | null;
}

const PARAMS = { title: 't', message: 'm', dark: 'd', backUrl: 'b' } as const;

/**
 * Links to the built-in thank-you page `{submit_url}/<formId>/thanks`. Custom wording travels in
 * the query, signed: without the signature anyone could link to the page with words of their own
 * on the form owner's submit domain.
 */
export class ThankYouLinks {
  constructor(private readonly secret: string) {}

  build(submitUrl: string, formId: string, content: ThankYouContent): string {
    const query = new URLSearchParams();
    if (content.title) query.set(PARAMS.title, content.title);
    if (content.message) query.set(PARAMS.message, content.message);
    if (content.dark) query.set(PARAMS.dark, '1');
    if (content.backUrl) query.set(PARAMS.backUrl, content.backUrl);
    const base = `${submitUrl}/${encodeURIComponent(formId)}/thanks`;
    if ([...query.keys()].length === 0) return base;
    query.set('s', this.sign(formId, query));
    return `${base}?${query}`;
  }

  /** The content of a link this service built; defaults only when the query is missing, unsigned or altered. */
  read(formId: string, query: URLSearchParams): ThankYouContent {
    const signature = query.get('s');
    if (!signature) return {};
    const unsigned = new URLSearchParams([...query].filter(([key]) => key !== 's'));
    const expected = Buffer.from(this.sign(formId, unsigned));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return {};
    return {
      title: unsigned.get(PARAMS.title) ?? undefined,
      message: unsigned.get(PARAMS.message) ?? undefined,
      dark: unsigned.get(PARAMS.dark) === '1',
      backUrl: unsigned.get(PARAMS.backUrl),
    };
  }

  private sign(formId: string, query: URLSearchParams): string {
    return createHmac('sha256', this.secret).update(`thanks\n${formId}\n${query}`).digest('base64url').slice(0, 22);
  }
}
