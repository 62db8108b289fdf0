import type { Flash } from '../flash.js';
import type { ConfirmationView } from '../../services/recipients.js';
import { Button, CsrfInput } from './components.js';
import { PublicLayout } from './layout.js';

interface RecipientPageProps {
  csrf: string;
  view: ConfirmationView;
  /** The link's secret: the page's form posts back to it. */
  secret: string;
  flash: Flash | null;
}

const TITLES: Record<ConfirmationView['state'], string> = {
  pending: 'Do you want these form notifications?',
  confirmed: 'You receive these form notifications',
  declined: 'You declined these form notifications',
};

/**
 * The page of a confirmation link (no login: the link is the key). It only shows; confirming or
 * declining is a button (a POST), so a mail scanner that opens the link changes nothing.
 */
export function RecipientConfirmationPage({ csrf, view, secret, flash }: RecipientPageProps) {
  const forms = view.formNames.length > 0 ? view.formNames.join(', ') : 'none at the moment';
  return (
    <PublicLayout title={TITLES[view.state]} flash={flash}>
      <p>
        The workspace <strong>“{view.workspaceName}”</strong> on this Formgate listed <strong>{view.email}</strong> to receive the submissions of its forms by
        email.
        {view.state === 'pending' && ' Nothing is sent to you unless you confirm.'}
        {view.state === 'confirmed' && ' Each new submission is emailed to you. You can stop them here at any time.'}
        {view.state === 'declined' && ' Nothing is sent to you, and the workspace cannot ask you again.'}
      </p>
      <dl class="facts">
        <dt>Workspace</dt>
        <dd>{view.workspaceName}</dd>
        <dt>Its forms that list you</dt>
        <dd>{forms}</dd>
        <dt>Your address</dt>
        <dd>{view.email}</dd>
      </dl>
      <form method="post" action={`/recipients/${secret}`} class="answer-actions">
        <CsrfInput token={csrf} />
        {view.state !== 'confirmed' && (
          <button type="submit" name="answer" value="confirm">
            {view.state === 'declined' ? 'Receive them after all' : 'Yes, send me these notifications'}
          </button>
        )}
        {view.state !== 'declined' && (
          <Button type="submit" name="answer" value="decline" variant={view.state === 'confirmed' ? 'primary' : 'secondary'}>
            {view.state === 'confirmed' ? 'Stop these notifications' : 'No, decline'}
          </Button>
        )}
      </form>
      <p class="hint">Keep the email with this link: it is how you change your answer later.</p>
    </PublicLayout>
  );
}
