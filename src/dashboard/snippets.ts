import type { SpamProtection } from '../services/forms.js';

/** The honeypot every form has (docs/submit.md): the snippet's trap unless the form names its own. */
export const DEFAULT_HONEYPOT = '_gotcha';

/** The site key placeholder: the key is the owner's, from the provider's console; Formgate never sees it. */
export const SITE_KEY_PLACEHOLDER = 'YOUR_SITE_KEY';

interface CaptchaWidget {
  label: string;
  /** The tag inside the form; `address` is the form's submit address (`{submit_url}/<formId>`). */
  widget: string | ((address: string) => string);
  script: string | ((address: string) => string);
}

/** Each provider's widget (it adds the answer field the submit surface verifies) and its script. */
const CAPTCHA_WIDGETS: Record<SpamProtection, CaptchaWidget> = {
  GOOGLE_RECAPTCHA_V2: {
    label: 'Google reCAPTCHA v2',
    widget: `<div class="g-recaptcha" data-sitekey="${SITE_KEY_PLACEHOLDER}"></div>`,
    script: '<script src="https://www.google.com/recaptcha/api.js" async defer></script>',
  },
  HCAPTCHA: {
    label: 'hCaptcha',
    widget: `<div class="h-captcha" data-sitekey="${SITE_KEY_PLACEHOLDER}"></div>`,
    script: '<script src="https://js.hcaptcha.com/1/api.js" async defer></script>',
  },
  TURNSTILE: {
    label: 'Cloudflare Turnstile',
    widget: `<div class="cf-turnstile" data-sitekey="${SITE_KEY_PLACEHOLDER}"></div>`,
    script: '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>',
  },
  BOTPOISON: {
    label: 'Botpoison',
    // Botpoison has no widget: its script solves a challenge for every form carrying the public key
    widget: `<!-- on the <form> tag: data-botpoison-public-key="${SITE_KEY_PLACEHOLDER}" -->`,
    script: '<script src="https://unpkg.com/@botpoison/browser" async></script>',
  },
  ALTCHA: {
    label: 'ALTCHA',
    // served by the submit surface itself: no site key, no third party
    widget: (address) => `<altcha-widget challenge="${altchaBase(address)}/challenge?form=${address.slice(address.lastIndexOf('/') + 1)}"></altcha-widget>`,
    script: (address) => `<script type="module" src="${altchaBase(address)}/altcha.js"></script>`,
  },
};

/** Where the submit surface serves ALTCHA: `{submit_url}/altcha`, beside the form's address. */
function altchaBase(address: string): string {
  return `${address.slice(0, address.lastIndexOf('/'))}/altcha`;
}

function tagOf(tag: CaptchaWidget['widget'], address: string): string {
  return typeof tag === 'string' ? tag : tag(address);
}

export interface CaptchaSnippet {
  label: string;
  code: string;
}

/** The captcha's tag and script for the form's provider (posting to `address`), or null when the form asks for none. */
export function captchaSnippet(provider: SpamProtection | null, address: string): CaptchaSnippet | null {
  if (!provider) return null;
  const { label, widget, script } = CAPTCHA_WIDGETS[provider];
  return { label, code: `${tagOf(widget, address)}\n${tagOf(script, address)}` };
}

/** What shapes a form's snippets beyond its address. */
export interface SnippetOptions {
  /** The `id` the HTML form gets (and, as their prefix, its fields) and the fetch example selects: a page may have other forms (a search box in its header, another Formgate form). */
  elementId: string;
  honeypot: string | null;
  provider: SpamProtection | null;
  /** The form stores file parts: the HTML form gets a file input and the encoding files need. */
  files: boolean;
}

/** The `id` of a form's element in its snippets: from the random end of the form's id, so two forms on one page never share it. */
export function snippetElementId(formId: string): string {
  return `formgate-${formId.slice(-8)}`;
}

/** A plain HTML form posting to `address`: name, email and message (and a file when uploads are on), the trap field, and the captcha when there is one. */
export function htmlSnippet(address: string, { elementId, honeypot, provider, files }: SnippetOptions): string {
  const trap = honeypot ?? DEFAULT_HONEYPOT;
  const attributes = [`id="${elementId}"`, `action="${address}"`, 'method="post"'];
  // NOTE: without multipart encoding a browser sends only each file's name, never its content
  if (files) attributes.push('enctype="multipart/form-data"');
  if (provider === 'BOTPOISON') attributes.push(`data-botpoison-public-key="${SITE_KEY_PLACEHOLDER}"`);
  const captcha = provider && provider !== 'BOTPOISON' ? [`  ${tagOf(CAPTCHA_WIDGETS[provider].widget, address)}`] : [];
  const script = provider ? [tagOf(CAPTCHA_WIDGETS[provider].script, address)] : [];
  // NOTE: each field's id starts with the form's own, so two forms on one page never share one
  // (a label names the first element of its id: a second form's labels would name the first's fields)
  const id = (field: string) => `${elementId}-${field}`;
  const fileInput = files
    ? [
        `  <label for="${id('attachment')}">Attachment</label>`,
        '  <!-- add `multiple` to take several files in one field -->',
        `  <input id="${id('attachment')}" name="attachment" type="file">`,
      ]
    : [];
  return [
    `<form ${attributes.join(' ')}>`,
    `  <label for="${id('name')}">Name</label>`,
    `  <input id="${id('name')}" name="name" type="text" autocomplete="name" required>`,
    `  <label for="${id('email')}">Email</label>`,
    `  <input id="${id('email')}" name="email" type="email" autocomplete="email" required>`,
    `  <label for="${id('message')}">Message</label>`,
    `  <textarea id="${id('message')}" name="message" rows="5" required></textarea>`,
    ...fileInput,
    '  <!-- a trap for bots: people never see it; a filled one drops the submission -->',
    `  <input type="text" name="${trap}" style="display:none" tabindex="-1" autocomplete="off">`,
    ...captcha,
    '  <button type="submit">Send</button>',
    '</form>',
    ...script,
  ].join('\n');
}

/** The same form sent by `fetch`, asking for JSON, with the answer handled: thanks, or the problem's detail. */
export function fetchSnippet(address: string, { elementId }: Pick<SnippetOptions, 'elementId'>): string {
  return [
    '<script>',
    `  const form = document.getElementById('${elementId}');`,
    "  form.addEventListener('submit', async (event) => {",
    '    event.preventDefault();',
    `    const response = await fetch('${address}', {`,
    "      method: 'POST',",
    "      headers: { Accept: 'application/json' },",
    '      // every named field, files too: leave Content-Type unset and the browser sets it',
    '      body: new FormData(form),',
    '    });',
    '    if (response.ok) {',
    "      form.replaceWith('Thank you: your message was sent.');",
    '    } else {',
    '      // a problem document: `detail` says what was wrong, in words a visitor can read',
    '      const problem = await response.json();',
    '      alert(problem.detail);',
    '    }',
    '  });',
    '</script>',
  ].join('\n');
}
