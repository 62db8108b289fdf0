import { Fragment } from 'preact';
import { notificationEmailsOf } from '../../services/forms.js';
import type { TestDelivery, TestOutcome, TestSent } from '../../services/test-submissions.js';
import type { FormWithPlan } from '../form-frame.js';
import { testBlocker } from './form-behaviour-panel.js';
import { captchaSnippet, DEFAULT_HONEYPOT, fetchSnippet, htmlSnippet, SITE_KEY_PLACEHOLDER, type SnippetOptions, snippetElementId } from '../snippets.js';
import { Badge, type BadgeTone, Breakable, CodeBlock, CsrfInput, EmptyState, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { FormLayout, formPath } from './form-layout.js';
import type { Frame } from './layout.js';
import { deliveryKindName } from './delivery-words.js';

/** Who is emailed each submission, with the way to change it: a new owner's first question after "does it work?". */
function RecipientsLine({ form }: { form: FormWithPlan }) {
  const recipients = notificationEmailsOf(form);
  const change = `${formPath(form.id, 'settings')}#notifications`;
  if (recipients.length === 0) {
    return (
      <p>
        Emails go to: <strong>no one</strong>. Submissions are kept in the inbox. <a href={change}>Add a notification address</a>
      </p>
    );
  }
  return (
    <p>
      Emails go to:{' '}
      <strong>
        {recipients.map((address, i) => (
          <Fragment key={address}>
            {i > 0 && ', '}
            <Breakable text={address} />
          </Fragment>
        ))}
      </strong>
      . <a href={change}>Change where emails go</a>
    </p>
  );
}

interface FormSetupProps {
  frame: Frame;
  form: FormWithPlan;
  /** The form's submit address: `{submit_url}/<formId>`. */
  address: string;
  /** The submit surface's refusal of a test submission just sent. */
  refused?: Extract<TestSent, { stored: false }>;
}

/** How to put the form on a page: its address, snippets to copy, and a test submission to see it work. */
export function FormSetupPage({ frame, form, address, refused }: FormSetupProps) {
  const captcha = captchaSnippet(form.spamProtection, address);
  const trap = form.customHoneypot ?? DEFAULT_HONEYPOT;
  const snippet: SnippetOptions = {
    elementId: snippetElementId(form.id),
    honeypot: form.customHoneypot,
    provider: form.spamProtection,
    files: false,
  };
  const blocker = testBlocker(form, captcha?.label ?? null);
  return (
    <FormLayout frame={frame} form={form} tab="setup" title="Setup" scripts={['copy.js']}>
      {refused && (
        <div class="alert" role="alert">
          <p>
            <strong>The test submission was refused; nothing was stored.</strong> {refused.title}: {refused.detail}
          </p>
          {refused.errors.length > 0 && (
            <ul>
              {refused.errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {captcha && (
        <p class="notice captcha-warning" id="captcha-warning">
          <strong>{`This form refuses every submission without a solved ${captcha.label} challenge.`}</strong> Your site’s form must include the widget (see
          CAPTCHA below), or nothing is stored.
        </p>
      )}
      <Panel title="Submit address">
        <p>Your page’s form posts to this address. No key or login is needed: the address is the form.</p>
        <CodeBlock id="submit-address" label="Submit address" copy="Copy address" code={address} wrap />
      </Panel>
      <Panel title="Where submissions go">
        <RecipientsLine form={form} />
      </Panel>
      {/* NOTE: near the top (issue 41, item 11): whoever has just pasted the snippet comes back here to check that it works */}
      <Panel title="Send a test submission" id="test-submission">
        <p>
          Posts one submission to the address above, as a visitor’s page would, named “Formgate test”, from your address ({frame.account.email}). It is a real
          submission: {frame.plans.team ? '' : 'it counts against the workspace’s allowance, '}it is delivered (emails, webhook, Slack) like any other, and you
          can delete it.
        </p>
        {blocker && (
          <p class="notice" id="test-blocked">
            {blocker}
          </p>
        )}
        <form method="post" action={`/forms/${form.id}/test-submission`}>
          <CsrfInput token={frame.csrf} />
          <button type="submit" disabled={blocker !== null} aria-describedby={blocker ? 'test-blocked' : undefined}>
            Send a test submission
          </button>
        </form>
      </Panel>
      <Panel title="HTML form">
        <p>
          Paste this into your page and change the fields as you like: every field with a <code>name</code> is kept. The hidden <code>{trap}</code> field is a
          trap for bots; leave it in and leave it empty.
          {captcha && ` It includes the ${captcha.label} widget this form asks for.`}
        </p>
        <CodeBlock id="snippet-html" label="HTML form" copy="Copy HTML form" code={htmlSnippet(address, snippet)} />
        <p class="muted">
          {form.redirectUrl ? (
            <>
              After sending, visitors go to <code>{form.redirectUrl}</code> (Settings, After a submission); a{' '}
              <code>{'<input type="hidden" name="_redirect" value="https://…">'}</code> in the form wins for its submission.
            </>
          ) : (
            <>
              After sending, visitors see a thank-you page (its wording is in Settings); set a page of yours under Settings, After a submission, or add{' '}
              <code>{'<input type="hidden" name="_redirect" value="https://…">'}</code> to send them there instead.
            </>
          )}
        </p>
      </Panel>
      <Panel title="Taking files">
        {form.uploadsEnabled === 1 ? (
          <>
            <p>
              To let visitors attach files, give the form a file input and <code>enctype="multipart/form-data"</code>: without it browsers send only each file’s
              name. The limits (size, count, types) are in <a href={formPath(form.id, 'settings')}>Settings</a>, under File uploads.
            </p>
            <CodeBlock
              id="snippet-html-files"
              label="HTML form with a file input"
              copy="Copy HTML form with a file input"
              code={htmlSnippet(address, { ...snippet, files: true })}
            />
          </>
        ) : (
          <p>
            This form drops the files a page sends and keeps the rest. Turn file uploads on in <a href={formPath(form.id, 'settings')}>Settings</a> to keep
            them.
          </p>
        )}
      </Panel>
      <Panel title="Sending with fetch">
        <p>
          To stay on the page, send the same form with <code>fetch</code> and <code>Accept: application/json</code>: the answer is the stored submission, or a
          problem whose <code>detail</code> says what was wrong. Put this after the form: it finds the form by its <code>id</code>,{' '}
          <code>{snippet.elementId}</code>, so other forms on the page (a search box, a newsletter sign-up) are left alone. Files go too: leave{' '}
          <code>Content-Type</code> unset and the browser sends them.
        </p>
        <CodeBlock id="snippet-fetch" label="Fetch example" copy="Copy fetch example" code={fetchSnippet(address, snippet)} />
      </Panel>
      {captcha && (
        <Panel title={`CAPTCHA: ${captcha.label}`}>
          <p>
            This form refuses submissions without a solved {captcha.label} challenge. Put the widget inside the form and the script on the page (the HTML above
            has both).{' '}
            {form.spamProtection === 'ALTCHA' ? (
              <>
                Formgate serves the widget and its challenges from the submit address’s server: there is no key to replace and no third party. A visitor’s
                browser works about a second to solve a challenge; each is good for 10 minutes and for one submission.
              </>
            ) : (
              <>
                <strong>Replace {SITE_KEY_PLACEHOLDER} with your site key</strong> from the provider’s console: it is yours, and Formgate never sees it; the
                secret key stays in the form’s settings.
              </>
            )}
          </p>
          <CodeBlock id="snippet-captcha" label="CAPTCHA tags" copy="Copy CAPTCHA tags" code={captcha.code} />
        </Panel>
      )}
    </FormLayout>
  );
}

const STATUS_NAMES: Record<string, string> = { pending: 'Waiting to be sent', done: 'Delivered', failed: 'Failed' };

const STATUS_TONES: Record<string, BadgeTone> = { pending: 'neutral', done: 'success', failed: 'danger' };

const DELIVERY_COLUMNS: Column<TestDelivery>[] = [
  { label: 'Delivery', cell: (d) => deliveryKindName(d.kind) },
  { label: 'To', cell: (d) => (d.target ? <Breakable text={d.target} /> : d.kind === 'autoresponder' ? 'the submitter' : '—') },
  {
    label: 'Status',
    cell: (d) =>
      d.status === 'done' && d.writtenTo ? (
        // NOTE: not "Delivered": without FORMGATE_SMTP_URL the email only went to a file of the mail folder
        <>
          <Badge tone="warning">Written to a file</Badge>
          <span class="muted sub-line">in the mail folder, not sent: no SMTP server is configured</span>
        </>
      ) : (
        <Badge tone={STATUS_TONES[d.status] ?? 'neutral'}>{STATUS_NAMES[d.status] ?? d.status}</Badge>
      ),
  },
  { label: 'Tries', cell: (d) => d.attempts },
  { label: 'Last error', cell: (d) => d.lastError ?? '' },
];

/** Where the test went: stored (or held, or caught as spam), and each delivery queued for it. */
export function TestResultPage({ frame, form, outcome }: { frame: Frame; form: FormWithPlan; outcome: TestOutcome }) {
  const { submission, deliveries } = outcome;
  return (
    <FormLayout frame={frame} form={form} tab="setup" title="Test submission">
      <Panel title="Test submission">
        {submission.status === 'accepted' && (
          <p>
            Stored <Time ms={submission.createdAt} />, as an accepted submission. <a href={`/submissions/${submission.id}`}>Open the submission</a>
          </p>
        )}
        {submission.status === 'held' && (
          <p>
            Stored <Time ms={submission.createdAt} />, but <strong>held</strong>: the workspace has used its allowance of submissions, so it is neither listed
            nor delivered until the allowance grows (an upgrade releases held submissions, oldest first).{' '}
            <a href={`/forms/${form.id}/held`}>Held submissions</a>
          </p>
        )}
        {submission.status === 'spam' && (
          <>
            <p>
              Stored <Time ms={submission.createdAt} />, in the <strong>spam folder</strong>: the filter took it for spam, so nothing is delivered.{' '}
              <a href={formPath(form.id, 'spam')}>Spam folder</a>
            </p>
            {submission.spamReasons.length > 0 && (
              <ul>
                {submission.spamReasons.map((reason) => (
                  <li key={reason}>{reason}</li>
                ))}
              </ul>
            )}
          </>
        )}
        <p class="muted">
          {frame.plans.team
            ? 'A test submission is a real one: it is listed and delivered, and can be deleted like any other.'
            : 'A test submission is a real one: it counts against the allowance and can be deleted like any other.'}
        </p>
      </Panel>
      <Panel title="Deliveries">
        {deliveries.length === 0 ? (
          <EmptyState>
            {submission.status === 'accepted' ? (
              <p>
                Nothing is sent: no notification address, webhook or Slack channel is set. <a href={formPath(form.id, 'settings')}>Settings</a>
              </p>
            ) : (
              <p>Nothing is sent for a {submission.status === 'held' ? 'held' : 'spam'} submission.</p>
            )}
          </EmptyState>
        ) : (
          <>
            <DataTable label="Deliveries of the test" columns={DELIVERY_COLUMNS} rows={deliveries} rowKey={(d) => d.id} />
            <p class="muted">
              Deliveries are sent in the background, and tried again when they fail; reload this page to see them go, or follow them in the{' '}
              <a href={formPath(form.id, 'deliveries')}>delivery log</a>.
            </p>
          </>
        )}
      </Panel>
      <p>
        <a href={formPath(form.id, 'setup')}>Back to Setup</a>
      </p>
    </FormLayout>
  );
}
