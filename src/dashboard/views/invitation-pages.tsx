import type { InvitationView } from '../../services/invitations.js';
import { ButtonLink, CsrfInput, Time } from './components.js';
import { PublicLayout } from './layout.js';

interface InvitationPageProps {
  csrf: string;
  view: InvitationView;
  /** The link's secret: the page's forms post back to it. */
  secret: string;
}

/** The invited account, logged in: what it joins, who asked, and the one button that joins. */
export function JoinWorkspacePage({ csrf, view, secret, email }: InvitationPageProps & { email: string }) {
  return (
    <PublicLayout title={`Join ${view.workspaceName}`} lead={`${view.inviterEmail} invited you to join their team on Formgate.`}>
      <dl class="facts">
        <dt>Workspace</dt>
        <dd>{view.workspaceName}</dd>
        <dt>Invited by</dt>
        <dd>{view.inviterEmail}</dd>
        <dt>You join as</dt>
        <dd>{email}</dd>
        <dt>Link expires</dt>
        <dd>
          <Time ms={view.invitation.expiresAt} />
        </dd>
      </dl>
      <form method="post" action={`/invitations/${secret}`}>
        <CsrfInput token={csrf} />
        <button type="submit">Join workspace</button>
      </form>
      <p class="links">
        <a href="/">Not now: go to the dashboard</a>
      </p>
    </PublicLayout>
  );
}

/** Logged in as someone else: the invitation names its address; logging out (and back in) fixes it. */
export function OtherAccountPage({ csrf, view, secret, email }: InvitationPageProps & { email: string }) {
  return (
    <PublicLayout title="This invitation is for another address">
      <p>
        {view.inviterEmail} invited <strong>{view.invitation.email}</strong> to “{view.workspaceName}”, but you are logged in as <strong>{email}</strong>. Only
        the account with the invited address can accept it.
      </p>
      <p>Log out, then open the link again to log in or sign up with {view.invitation.email}.</p>
      <form method="post" action={`/invitations/${secret}/logout`}>
        <CsrfInput token={csrf} />
        <button type="submit">Log out and continue</button>
      </form>
      <p class="links">
        <a href="/">Stay logged in: go to the dashboard</a>
      </p>
    </PublicLayout>
  );
}

/** Not logged in, and the invited address has an account: log in with it to accept. */
export function LogInToAcceptPage({ view, secret }: Omit<InvitationPageProps, 'csrf'>) {
  return (
    <PublicLayout title={`Join ${view.workspaceName}`} lead={`${view.inviterEmail} invited you to join their team on Formgate.`}>
      <p>
        {view.invitation.email} already has an account here. Log in with it to accept the invitation to “{view.workspaceName}”.
      </p>
      <ButtonLink class="wide" href={`/login?next=${encodeURIComponent(`/invitations/${secret}`)}`}>
        Log in to accept
      </ButtonLink>
    </PublicLayout>
  );
}
