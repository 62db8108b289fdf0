import type { FormDeletionCounts } from '../../services/forms.js';
import type { FormWithPlan } from '../form-frame.js';
import { ConfirmForm } from './components.js';
import { formPath, FormLayout } from './form-layout.js';
import type { Frame } from './layout.js';

/** "1 submission", "3 templates". */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/** Asks before a new webhook secret replaces the old: receivers verifying with the old one refuse what comes next. */
export function RotateWebhookSecretPage({ frame, form }: { frame: Frame; form: FormWithPlan }) {
  const back = `${formPath(form.id, 'settings')}#webhook-secret`;
  return (
    <FormLayout frame={frame} form={form} tab="settings" title="Rotate the webhook signing secret?">
      <div class="panel">
        <h2>Rotate the webhook signing secret?</h2>
        <p>
          A new secret replaces the old one at once. Every webhook sent from then on is signed with the new one, including those already waiting in the queue
          and the retries of failed ones: a receiver that still checks with the old secret refuses them until you give it the new one.
        </p>
        <p class="muted">The old secret cannot be brought back. The new one is shown on the next page, to copy.</p>
        <ConfirmForm csrf={frame.csrf} action={`/forms/${form.id}/settings/webhook-secret/rotate#webhook-secret`} button="Rotate secret" cancel={back} />
      </div>
    </FormLayout>
  );
}

/** Asks before deleting a form, naming everything that goes with it. */
export function DeleteFormPage({ frame, form, counts }: { frame: Frame; form: FormWithPlan; counts: FormDeletionCounts }) {
  const submissions = counts.accepted + counts.spam + counts.held;
  return (
    <FormLayout frame={frame} form={form} tab="settings" title={`Delete “${form.name}”?`}>
      <div class="panel">
        <h2>{`Delete “${form.name}”?`}</h2>
        <p>This cannot be undone. Deleted with it:</p>
        <ul class="consequences">
          <li>
            {count(submissions, 'submission')}
            {submissions > 0 &&
              ` (${counts.accepted.toLocaleString('en')} in the inbox, ${counts.spam.toLocaleString('en')} spam, ${counts.held.toLocaleString('en')} held)`}
          </li>
          <li>{count(counts.templates, 'email template')}</li>
          <li>{count(counts.secrets, 'stored secret key', 'stored secret keys')} and its webhook signing secret</li>
          <li>
            {count(counts.pendingDeliveries, 'delivery', 'deliveries')} (email, webhook, Slack) waiting to go out:{' '}
            {counts.pendingDeliveries === 1 ? 'it is' : 'they are'} not sent
          </li>
        </ul>
        <p>Pages that still post to it get “not found”. Submissions already sent by email, webhook or Slack stay where they arrived.</p>
        <ConfirmForm csrf={frame.csrf} action={`/forms/${form.id}/delete`} button="Delete form" cancel={formPath(form.id, 'settings')} />
      </div>
    </FormLayout>
  );
}
