import type { Flash } from '../flash.js';
import type { NotSpamView } from '../../services/not-spam-links.js';
import { timeText } from '../submission-fields.js';
import { CsrfInput } from './components.js';
import { PublicLayout } from './layout.js';
import { SpamReasons } from './submission-page.js';

interface NotSpamLinkPageProps {
  csrf: string;
  view: NotSpamView;
  /** The link's token: the page's form posts back to it. */
  token: string;
  flash: Flash | null;
}

const TITLES: Record<NotSpamView['status'], string> = {
  spam: 'Is this submission spam?',
  accepted: 'This submission is in the inbox',
  held: 'This submission is in the inbox, held',
};

/**
 * The page of a spam digest's "Not spam" link (no login: the signed link is the key). It only
 * shows; moving the submission is its button (a POST), so a mail scanner that opens the link changes nothing.
 */
export function NotSpamLinkPage({ csrf, view, token, flash }: NotSpamLinkPageProps) {
  return (
    <PublicLayout title={TITLES[view.status]} flash={flash}>
      <p>
        {view.status === 'spam'
          ? 'The spam filter caught this submission, so it was not delivered. If it is real, move it to the inbox: its notification, autoresponder, webhook and chat messages then go out.'
          : view.status === 'accepted'
            ? 'It is no longer in the spam folder: nothing more to do here.'
            : 'It is no longer in the spam folder; it waits past the workspace’s allowance and is delivered once the allowance grows.'}
      </p>
      <dl class="facts">
        <dt>Workspace</dt>
        <dd>{view.workspaceName}</dd>
        <dt>Form</dt>
        <dd>{view.formName}</dd>
        <dt>From</dt>
        <dd>{view.sender ?? 'Unknown sender'}</dd>
        <dt>Received</dt>
        <dd>{timeText(view.createdAt)}</dd>
        <dt>Message</dt>
        <dd>{view.firstLine || 'No text'}</dd>
        {view.status === 'spam' && (
          <>
            <dt>Caught because</dt>
            <dd>
              <SpamReasons reasons={view.reasons} />
            </dd>
          </>
        )}
      </dl>
      {view.status === 'spam' && (
        <form method="post" action={`/not-spam/${token}`} class="answer-actions">
          <CsrfInput token={csrf} />
          <button type="submit">Not spam: move it to the inbox</button>
        </form>
      )}
    </PublicLayout>
  );
}
