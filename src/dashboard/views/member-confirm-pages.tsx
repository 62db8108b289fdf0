import type { ComponentChildren } from 'preact';
import { ConfirmForm, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';

interface ConfirmProps {
  frame: Frame;
  title: string;
  children: ComponentChildren;
  action: string;
  button: string;
  cancel: string;
}

/** A change that cannot be undone asks first: a page with the one button that does it, and a way back. */
function ConfirmPage({ frame, title, children, action, button, cancel }: ConfirmProps) {
  return (
    <Layout title={title} frame={frame}>
      <Panel title="Are you sure?" id="confirm">
        {children}
        <ConfirmForm csrf={frame.csrf} action={action} button={button} cancel={cancel} />
      </Panel>
    </Layout>
  );
}

/** Asks an owner to confirm removing a member, naming them. */
export function RemoveMemberPage({
  frame,
  workspaceId,
  workspaceName,
  email,
  userId,
}: {
  frame: Frame;
  workspaceId: string;
  workspaceName: string;
  email: string;
  userId: string;
}) {
  return (
    <ConfirmPage
      frame={frame}
      title={`Remove ${email}?`}
      action={`/w/${workspaceId}/members/${userId}/remove`}
      button="Remove"
      cancel={`/w/${workspaceId}/members`}
    >
      <p>
        {email} will no longer see “{workspaceName}”, its forms or its submissions, from the dashboard or with their API tokens. Their account stays; an owner
        can invite them again.
      </p>
    </ConfirmPage>
  );
}

/** Asks a member to confirm leaving a workspace. */
export function LeaveWorkspacePage({ frame, workspaceId, workspaceName }: { frame: Frame; workspaceId: string; workspaceName: string }) {
  return (
    <ConfirmPage
      frame={frame}
      title={`Leave ${workspaceName}?`}
      action={`/w/${workspaceId}/leave`}
      button="Leave workspace"
      cancel={`/w/${workspaceId}/members`}
    >
      <p>You will no longer see its forms or its submissions. To come back, ask one of its owners to invite you again.</p>
    </ConfirmPage>
  );
}
