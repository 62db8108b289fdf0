/** The CAPTCHA providers a visitor's answer is checked with, by the provider, with the form's stored secret key. */
export type ThirdPartyCaptcha = 'BOTPOISON' | 'GOOGLE_RECAPTCHA_V2' | 'HCAPTCHA' | 'TURNSTILE';

/** What a form may ask for (the spec's `spamProtection`): a third party's CAPTCHA, or ALTCHA, which Formgate issues and checks itself. */
export type SpamProtection = ThirdPartyCaptcha | 'ALTCHA';

/** Every `spamProtection` value, in the order the API and the dashboard list them: the spec's four, then Formgate's addition. */
export const SPAM_PROTECTIONS = ['BOTPOISON', 'GOOGLE_RECAPTCHA_V2', 'HCAPTCHA', 'TURNSTILE', 'ALTCHA'] as const satisfies readonly SpamProtection[];

/** Whether the form must store a secret key before it may use `provider`: ALTCHA is signed with Formgate's own. */
export function needsSecretKey(provider: SpamProtection): provider is ThirdPartyCaptcha {
  return provider !== 'ALTCHA';
}

/** Where each provider's verify endpoint is: the public ones, or stand-ins in tests. */
export type CaptchaVerifyUrls = Record<ThirdPartyCaptcha, string>;

export const DEFAULT_CAPTCHA_VERIFY_URLS: CaptchaVerifyUrls = {
  BOTPOISON: 'https://api.botpoison.com/verify',
  GOOGLE_RECAPTCHA_V2: 'https://www.google.com/recaptcha/api/siteverify',
  HCAPTCHA: 'https://api.hcaptcha.com/siteverify',
  TURNSTILE: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
};
