import type { MailSetup } from '../../services/mail-check.js';
import type { MailTestResult } from '../mail-test-result.js';
import { TEST_EMAILS_PER_HOUR } from '../test-email-limit.js';
import { CsrfInput } from './components.js';

/** The admin page's mail section: how mail is set up, and the last test's answer. */
export interface MailCheck {
  setup: MailSetup;
  result: MailTestResult | null;
}

function Setup({ setup }: { setup: MailSetup }) {
  return (
    <dl class="mail-settings">
      <dt>Sent through</dt>
      {setup.via === 'smtp' ? (
        <dd>
          SMTP server <code class="file-path">{setup.server}</code>, TLS {setup.tls}
          {setup.user && (
            <>
              , as <code class="file-path">{setup.user}</code>
            </>
          )}
        </dd>
      ) : (
        <dd>
          Nothing is sent: FORMGATE_SMTP_URL is not set, so every email is written to a file in <code class="file-path">{setup.folder}</code>
        </dd>
      )}
      <dt>From</dt>
      <dd>
        <code class="file-path">{setup.from}</code>
      </dd>
    </dl>
  );
}

/** The test's outcome in words: what the server said, where the file is, or what went wrong. */
function Result({ result }: { result: MailTestResult }) {
  if ('refused' in result) {
    return (
      <div class="alert mail-answer" role="status">
        No test sent: you have sent {TEST_EMAILS_PER_HOUR} tests in the last hour. Try again in {result.refused} minute{result.refused === 1 ? '' : 's'}.
      </div>
    );
  }
  if ('sent' in result) {
    return (
      <div class="flash mail-answer" role="status">
        <p>Test email sent to {result.to}. The server answered:</p>
        <p>
          <code class="smtp-response">{result.sent}</code>
        </p>
      </div>
    );
  }
  if ('written' in result) {
    return (
      <div class="notice mail-answer" role="status">
        <p>Test email to {result.to} written to a file, not sent:</p>
        <p>
          <code class="file-path">{result.written}</code>
        </p>
      </div>
    );
  }
  return (
    <div class="alert mail-answer" role="status">
      <p>The test email to {result.to} was not sent.</p>
      <p>
        {result.statusCode !== null && <span class="status-code">{result.statusCode} </span>}
        <code class="smtp-response">{result.failed}</code>
        {result.code && <span class="muted"> ({result.code})</span>}
      </p>
    </div>
  );
}

/** Where the dashboard's mail banner leads: the setup, and a test email to oneself. */
export function MailPanel({ mail, csrf }: { mail: MailCheck; csrf: string }) {
  return (
    <section class="panel" id="mail" aria-labelledby="mail-heading">
      <h2 id="mail-heading">Mail</h2>
      {mail.result && <Result result={mail.result} />}
      <Setup setup={mail.setup} />
      <form method="post" action="/admin/mail/test">
        <CsrfInput token={csrf} />
        <p class="muted">
          {mail.setup.via === 'smtp'
            ? 'Sends one email to your own address now, straight to the SMTP server, and shows its answer.'
            : 'Writes one email to your own address into the folder above, as every email is without SMTP. Set FORMGATE_SMTP_URL (smtp://user:pass@host:587) and restart to send them.'}
        </p>
        <button type="submit">Send a test email</button>
      </form>
    </section>
  );
}
