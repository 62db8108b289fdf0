// The limits of a form's behaviour settings (issue 29): shared by the API's schema and the rules (services/form-behaviour.ts).

/** The longest owner's redirect: it becomes a Location header, which proxies refuse past a few KB (submit/origin-policy.ts). */
export const REDIRECT_URL_MAX = 2_000;
/** As the built-in pages cap `_feedback.*` (submit/pages.ts). */
export const THANKS_TITLE_MAX = 200;
export const THANKS_MESSAGE_MAX = 2_000;
/** As the notification caps `_email.subject` and `_email.from` (mail/notification.ts). */
export const SUBJECT_MAX = 200;
export const FROM_NAME_MAX = 64;
/** The highest cap: more than any plan's allowance, so a typo of a digit too many is still caught. */
export const MAX_SUBMISSIONS_MAX = 10_000_000;

/** The form's own wording (its Settings; the API's Formgate additions): text, or null for the default. */
export const FORM_BEHAVIOUR_TEXTS = [
  'redirectUrl',
  'thanksTitle',
  'thanksMessage',
  'notificationSubject',
  'notificationFromName',
  'autoresponseSubject',
  'autoresponseFromName',
] as const;

/** Every setting of the form's behaviour and state, as the API and the service name them. */
export const FORM_BEHAVIOUR_KEYS = [...FORM_BEHAVIOUR_TEXTS, 'paused', 'closesAt', 'maxSubmissions'] as const;
