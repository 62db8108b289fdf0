/** The CAPTCHA providers a form may ask for (the spec's `spamProtection`). */
export type SpamProtection = 'BOTPOISON' | 'GOOGLE_RECAPTCHA_V2' | 'HCAPTCHA' | 'TURNSTILE';

/** Where each provider's verify endpoint is: the public ones, or stand-ins in tests. */
export type CaptchaVerifyUrls = Record<SpamProtection, string>;

export const DEFAULT_CAPTCHA_VERIFY_URLS: CaptchaVerifyUrls = {
  BOTPOISON: 'https://api.botpoison.com/verify',
  GOOGLE_RECAPTCHA_V2: 'https://www.google.com/recaptcha/api/siteverify',
  HCAPTCHA: 'https://api.hcaptcha.com/siteverify',
  TURNSTILE: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
};
