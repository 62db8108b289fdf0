/** A title and the sentence under it. */
export interface Wording {
  title: string;
  message: string;
}

/**
 * Every word the built-in pages of the submit surface say on their own (the owner's `_feedback.*`
 * wording replaces some of them). One file per language; `index.ts` lists them.
 */
export interface PageText {
  thanks: Wording;
  /** The page a form's address shows to a GET without fields. */
  formAddress: Wording;
  /** The page that names where a link's redirect would lead, instead of going (issue 38, item 11). */
  onwards: string;
  goBack: string;
  backToForm: string;
  poweredBy: string;
  /** Any failure not named below. */
  error: Wording;
  /** By problem code first, then by status. */
  errors: {
    validation_error: Wording;
    captcha_failed: Wording;
    origin_not_allowed: Wording;
    not_found: Wording;
    payload_too_large: Wording;
    /** 403: the form is paused, past its closing time or full (its owner's settings); nothing was stored. */
    form_closed: Wording;
    /** 403: the workspace holds as many submissions past its allowance as it may; nothing was stored. */
    quota_exceeded: Wording;
    rate_limited: Wording;
    /** 503: storage unavailable, a CAPTCHA provider unreachable, a busy server; nothing was stored. */
    unavailable: Wording;
  };
}
