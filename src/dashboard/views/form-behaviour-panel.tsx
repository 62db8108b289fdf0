import {
  FROM_NAME_MAX,
  type FormStateName,
  MAX_SUBMISSIONS_MAX,
  REDIRECT_URL_MAX,
  SUBJECT_MAX,
  THANKS_MESSAGE_MAX,
  THANKS_TITLE_MAX,
} from '../../services/form-behaviour.js';
import type { BehaviourValues } from '../form-behaviour-input.js';
import type { FieldErrors } from '../field-errors.js';
import { Badge, Button, Field, TextArea } from './components.js';
import { type SectionState, SettingsSectionPanel } from './settings-section.js';

const STATE_WORDS: Record<Exclude<FormStateName, 'open'>, { badge: string; line: string }> = {
  paused: { badge: 'Paused', line: 'Every submission is refused with “This form is closed” and nothing is stored, until you resume it.' },
  closed: { badge: 'Closed', line: 'Its closing time has passed, so every submission is refused and nothing is stored.' },
  full: { badge: 'Full', line: 'It has received the number of submissions it takes, so every further one is refused and nothing is stored.' },
};

/** "Paused", "Closed" or "Full" beside a form's name (the forms list, the form's header); nothing while it is open. */
export function FormStateBadge({ state }: { state: FormStateName | undefined }) {
  if (!state || state === 'open') return null;
  return (
    <Badge tone="warning" class="form-state-badge">
      {STATE_WORDS[state].badge}
    </Badge>
  );
}

/** Under a form's tabs while it takes no submissions: why, in a sentence. */
export function FormStateNotice({ state }: { state: FormStateName | undefined }) {
  if (!state || state === 'open') return null;
  return (
    <p class="form-state">
      <FormStateBadge state={state} /> {STATE_WORDS[state].line}
    </p>
  );
}

interface PanelProps {
  values: BehaviourValues;
  errors?: FieldErrors;
  /** The instance admin stands behind the workspace (always, unless sign-up is open). */
  vouched?: boolean;
  /** The form's saved allowed origins: they decide the built-in pages' way back. */
  allowedOrigins?: string[];
  /** Each panel is a section of the settings page, saved on its own. */
  section: SectionState;
}

/**
 * What decides the link back to the site on the built-in thank-you and error pages (submit/origin-policy.ts,
 * backUrl), with what it is for this form now.
 */
function WayBackHint({ allowedOrigins, vouched }: { allowedOrigins: string[]; vouched: boolean }) {
  const first = allowedOrigins[0];
  const now = !first
    ? 'Now, with no allowed origins: the home page of the site each post came from; no link when the browser does not say.'
    : `Now: the page the form was on, when its site is listed; otherwise ${vouched ? `${first}/` : 'no link'}.`;
  return (
    <div id="way-back">
      <p class="hint">
        <strong>Link back to your site.</strong> The built-in thank-you and error pages end with one, decided by where the browser says the post came from (its
        Referer or Origin) and the form's <a href="#allowedOrigins">Allowed origins</a>: the page the form was on when that site is listed, else the first
        listed site; with none listed, the home page of the site the post came from, its address written beside the link. Only http and https addresses become
        links.
      </p>
      <p class="hint">{now}</p>
    </div>
  );
}

/**
 * What happens after a post (the redirect, the thank-you page's wording) and the emails' subjects and
 * sender names: what hidden fields did before, now set once for the form. Two sections of the settings
 * page, each saved on its own; `behaviourShown` tells the route the panels' fields were posted.
 */
export function FormBehaviourPanels({ values, errors, vouched = true, allowedOrigins = [], section }: PanelProps) {
  return (
    <>
      <SettingsSectionPanel id="after-submission" state={section}>
        <input type="hidden" name="behaviourShown" value="1" />
        {!vouched && (
          <p class="notice" id="behaviour-not-vouched">
            Anyone can sign up on this installation, so until its admin upgrades this workspace the thank-you page shows its own wording, not yours, and a link
            (a GET) to this form gets a page naming your redirect instead of going there. Posts from your site are redirected as usual.
          </p>
        )}
        <Field
          label="Redirect to"
          name="redirectUrl"
          type="url"
          value={values.redirectUrl}
          errors={errors}
          hint={`Optional; a page of your site that browsers go to after a successful post, instead of the built-in thank-you page: an absolute http or https address, at most ${REDIRECT_URL_MAX} characters. A form's own _redirect field still wins for its submission.`}
        />
        <Field
          label="Thank-you page title"
          name="thanksTitle"
          value={values.thanksTitle}
          errors={errors}
          hint={`Optional; plain text, at most ${THANKS_TITLE_MAX} characters. Empty: “Thank you!” in the visitor's language.`}
        />
        <TextArea
          label="Thank-you page message"
          name="thanksMessage"
          value={values.thanksMessage}
          errors={errors}
          hint={`Optional; plain text (line breaks kept), at most ${THANKS_MESSAGE_MAX} characters. Empty: the default sentence.`}
        />
        <WayBackHint allowedOrigins={allowedOrigins} vouched={vouched} />
      </SettingsSectionPanel>
      <SettingsSectionPanel id="email-wording" state={section}>
        <input type="hidden" name="behaviourShown" value="1" />
        <p class="hint">The address mail is sent from stays this server's; the sender name is what recipients see. One line each.</p>
        <Field
          label="Notification subject"
          name="notificationSubject"
          value={values.notificationSubject}
          errors={errors}
          hint={`Optional; at most ${SUBJECT_MAX} characters; placeholders of templates such as {{data.name}} are filled in. Empty: “New submission: <form name>”. A form's _email.subject field still wins.`}
        />
        <Field
          label="Notification sender name"
          name="notificationFromName"
          value={values.notificationFromName}
          errors={errors}
          hint={`Optional; at most ${FROM_NAME_MAX} characters. A form's _email.from field still wins.`}
        />
        <Field
          label="Autoresponder subject"
          name="autoresponseSubject"
          value={values.autoresponseSubject}
          errors={errors}
          hint={`Optional; at most ${SUBJECT_MAX} characters; placeholders of templates such as {{data.name}} are filled in. Empty: “We received your message” (visitors never see the form's name). Used once the form has an autoresponder template.`}
        />
        <Field
          label="Autoresponder sender name"
          name="autoresponseFromName"
          value={values.autoresponseFromName}
          errors={errors}
          hint={`Optional; at most ${FROM_NAME_MAX} characters. Empty: the site of the form's first allowed origin, else this server's sender name.`}
        />
      </SettingsSectionPanel>
    </>
  );
}

/**
 * The form's state: open or why not, the Pause/Resume button (its own route: it takes effect at once,
 * without the rest of the settings), and the closing time and cap (this section's own save).
 */
export function FormStatePanel({ values, errors, paused, state, section }: PanelProps & { paused: boolean; state: FormStateName | undefined }) {
  const action = section.action;
  return (
    <SettingsSectionPanel id="form-state" state={section}>
      <input type="hidden" name="behaviourShown" value="1" />
      {state && state !== 'open' ? (
        <FormStateNotice state={state} />
      ) : (
        <p class="form-state" id="form-state-now">
          Open: the form takes submissions.
        </p>
      )}
      <div class="actions">
        <Button type="submit" variant="secondary" name="paused" value={paused ? '0' : '1'} formAction={`${action}/pause`} aria-describedby="pause-hint">
          {paused ? 'Resume the form' : 'Pause the form'}
        </Button>
      </div>
      <p class="hint" id="pause-hint">
        {paused
          ? 'Resuming takes effect at once; nothing else on this page is saved by it.'
          : 'Pausing takes effect at once: visitors are told the form is closed and nothing is stored. Nothing else on this page is saved by it.'}
      </p>
      <Field
        label={`Close the form at (${values.zone})`}
        name="closesAt"
        type="datetime-local"
        value={values.closesAt}
        errors={errors}
        hint={`Optional; from this date and time on (${values.zone}: your account's time zone, or your browser's), submissions are refused as closed. Empty: never.`}
      />
      <Field
        label="Most submissions"
        name="maxSubmissions"
        value={values.maxSubmissions}
        errors={errors}
        inputMode="numeric"
        hint={`Optional; once the form has received this many submissions (spam not counted, held ones counted; deleting one does not free its place), it closes. 1 to ${MAX_SUBMISSIONS_MAX.toLocaleString('en-US')}. Empty: no limit.`}
      />
    </SettingsSectionPanel>
  );
}

/**
 * Beside a chosen CAPTCHA provider: the site's form must carry the provider's widget (and its site key),
 * else every post is refused (`captcha_failed`). `provider`: its name; null shows nothing.
 */
export function CaptchaWarning({ provider, formId }: { provider: string | null; formId: string }) {
  if (!provider) return null;
  return (
    <p class="notice captcha-warning" id="captcha-warning">
      <strong>{`Every submission must now carry a solved ${provider} challenge.`}</strong>
      {' Add the provider’s widget and script, with your site key, to the form on your site (see '}
      <a href={`/forms/${formId}/setup`}>Setup</a>
      {'), or every post is refused and nothing is stored. Send a test submission cannot solve it either.'}
    </p>
  );
}

/** Why "Send a test submission" cannot pass now, or null when it can: a CAPTCHA it cannot solve, a form that takes nothing. */
export function testBlocker(form: { spamProtection: string | null; state?: FormStateName }, captchaLabel: string | null): string | null {
  if (form.state && form.state !== 'open') {
    return `This form is ${STATE_WORDS[form.state].badge.toLowerCase()} (see Settings, Taking submissions): the test would be refused as closed. ${
      form.state === 'paused' ? 'Resume the form first.' : 'Change its closing time or its most submissions first.'
    }`;
  }
  if (form.spamProtection) {
    return `This form asks for a ${captchaLabel ?? 'CAPTCHA'} challenge, which a test cannot solve: it would be refused. Choose None under Spam protection in Settings to test, then choose the provider again.`;
  }
  return null;
}
