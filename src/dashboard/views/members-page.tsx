import type { Invitation } from '../../services/invitations.js';
import type { Workspace } from '../../services/workspaces.js';
import type { Member } from '../../services/team.js';
import type { FieldErrors } from '../field-errors.js';
import { Badge, Breakable, ButtonLink, CodeBlock, CsrfInput, EmptyState, Field, FormError, Panel, Time } from './components.js';
import { DataTable, type MaybeColumn } from './data-table.js';
import { type Frame, Layout } from './layout.js';

export interface MembersPageProps {
  frame: Frame;
  workspace: Workspace;
  members: Member[];
  invitations: Invitation[];
  seats: { taken: number; limit: number | null };
  /** The viewer: their id and whether they own the workspace (owners change the team). */
  viewer: { userId: string; owner: boolean };
  email?: string;
  errors?: FieldErrors;
  /** The invitation just sent, with its link: shown this once. */
  sent?: SentInvitation;
}

/** An invitation just made, as its owner sees it once: the link can never be shown again. */
export interface SentInvitation {
  email: string;
  link: string;
  expiresAt: number;
}

/** The link of the invitation just sent, to copy: for installations that send no mail, or a message that does not arrive. */
function InvitationLinkPanel({ sent }: { sent: SentInvitation }) {
  return (
    <Panel title="Invitation link">
      <p>
        An email with this link is on its way to{' '}
        <strong>
          <Breakable text={sent.email} />
        </strong>
        . If mail is not set up here, or it does not arrive, send them the link yourself: it works once, for that address only, until{' '}
        <Time ms={sent.expiresAt} />.
      </p>
      <CodeBlock id="invitation-link" label={`Invitation link for ${sent.email}`} copy="Copy invitation link" code={sent.link} wrap />
      <p class="muted">It is shown only now. For another, use New link beside the invitation: the one before it stops working.</p>
    </Panel>
  );
}

/** "3 of 5 members, counting pending invitations", or just the count on a plan without a limit. */
function seatLine({ taken, limit }: { taken: number; limit: number | null }, team: boolean): string {
  if (limit !== null) return `${taken} of ${limit} members, counting pending invitations.`;
  // team mode speaks no plans (issue 41, item 16)
  if (team) return `${taken} ${taken === 1 ? 'member' : 'members'}, counting pending invitations.`;
  return `${taken} ${taken === 1 ? 'member' : 'members'}, counting pending invitations; this plan has no member limit.`;
}

function MemberTable({ workspace, members, viewer }: Pick<MembersPageProps, 'workspace' | 'members' | 'viewer'>) {
  const columns: MaybeColumn<Member>[] = [
    {
      label: 'Email',
      cell: (m) => (
        <span>
          {m.email}
          {m.userId === viewer.userId && <span class="muted"> (you)</span>}
        </span>
      ),
    },
    {
      label: 'Role',
      cell: (m) => (
        <span>
          <Badge tone={m.role === 'owner' ? 'accent' : 'neutral'}>{m.role === 'owner' ? 'Owner' : 'Member'}</Badge>
          {m.creator && <span class="muted"> creator</span>}
        </span>
      ),
    },
    { label: 'Joined', cell: (m) => <Time ms={m.joinedAt} /> },
    viewer.owner && {
      label: 'Actions',
      cell: (m) =>
        m.creator || m.userId === viewer.userId ? (
          <span class="muted">—</span>
        ) : (
          <a href={`/w/${workspace.id}/members/${m.userId}/remove`}>
            Remove<span class="visually-hidden"> {m.email}</span>
          </a>
        ),
    },
  ];
  return <DataTable label="Members" class="team" columns={columns} rows={members} rowKey={(m) => m.userId} />;
}

function InvitationTable({ frame, workspace, invitations, viewer }: Pick<MembersPageProps, 'frame' | 'workspace' | 'invitations' | 'viewer'>) {
  if (invitations.length === 0) {
    return (
      <EmptyState>
        <p>No pending invitations.{viewer.owner && ' Invite someone below: they get an email with a link that works for 7 days.'}</p>
      </EmptyState>
    );
  }
  const columns: MaybeColumn<Invitation>[] = [
    { label: 'Email', cell: (i) => i.email },
    { label: 'Sent', cell: (i) => <Time ms={i.createdAt} /> },
    { label: 'Expires', cell: (i) => <Time ms={i.expiresAt} /> },
    viewer.owner && {
      label: 'Actions',
      class: 'row-actions',
      cell: (i) => (
        <>
          <form method="post" action={`/w/${workspace.id}/invitations/${i.id}/new-link`} class="inline-form">
            <CsrfInput token={frame.csrf} />
            <button type="submit" class="link-button">
              New link<span class="visually-hidden"> for {i.email}</span>
            </button>
          </form>
          <form method="post" action={`/w/${workspace.id}/invitations/${i.id}/revoke`} class="inline-form">
            <CsrfInput token={frame.csrf} />
            <button type="submit" class="link-button">
              Revoke invitation<span class="visually-hidden"> to {i.email}</span>
            </button>
          </form>
        </>
      ),
    },
  ];
  return <DataTable label="Pending invitations" class="team" columns={columns} rows={invitations} rowKey={(i) => i.id} />;
}

/** A workspace's team: who is in it, who is invited, and (for owners) the invite form. */
export function MembersPage(props: MembersPageProps) {
  const { frame, workspace, members, seats, viewer, email, errors, sent } = props;
  const owners = members.filter((m) => m.role === 'owner').map((m) => m.email);
  const creator = members.find((m) => m.creator);
  return (
    <Layout title="Members" frame={frame} scripts={sent ? ['copy.js'] : undefined}>
      <p class="lead">{seatLine(seats, frame.plans.team)}</p>
      {sent && <InvitationLinkPanel sent={sent} />}
      <Panel title="Team">
        <MemberTable workspace={workspace} members={members} viewer={viewer} />
      </Panel>
      <Panel title="Pending invitations">
        <InvitationTable {...props} />
      </Panel>
      {viewer.owner ? (
        <Panel title="Invite someone">
          <FormError errors={errors} />
          <form method="post" action={`/w/${workspace.id}/invitations`} noValidate>
            <CsrfInput token={frame.csrf} />
            <Field
              label="Email address"
              name="email"
              type="email"
              value={email}
              autocomplete="off"
              hint="They get an email with a link to join; it works once, for 7 days."
              required
              errors={errors}
            />
            <button type="submit">Invite</button>
          </form>
        </Panel>
      ) : (
        <Panel title="Invite someone">
          <p>Only the workspace’s owners invite people. To add someone, ask {owners.join(', ') || 'an owner'}.</p>
        </Panel>
      )}
      {creator?.userId !== viewer.userId && (
        <Panel title="Leave this workspace">
          <p>You lose access to its forms and submissions; an owner can invite you again.</p>
          <ButtonLink variant="secondary" href={`/w/${workspace.id}/leave`}>
            Leave workspace
          </ButtonLink>
        </Panel>
      )}
    </Layout>
  );
}
