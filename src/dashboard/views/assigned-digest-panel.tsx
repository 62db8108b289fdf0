import { CsrfInput, Panel } from './components.js';

interface AssignedDigestPanelProps {
  workspaceId: string;
  csrf: string;
  /** Whether this member gets the digest. */
  mine: boolean;
}

/** The member's own daily email of the open submissions assigned to them in this workspace (off until they tick it). */
export function AssignedDigestPanel({ workspaceId, csrf, mine }: AssignedDigestPanelProps) {
  return (
    <Panel title="Assigned to you" id="assigned-digest">
      <p>
        Once a day, how many open submissions are assigned to you here, the oldest and newest few with links, and a link to{' '}
        <a href={`/w/${workspaceId}/submissions?assignee=me`}>Mine</a>. No email on a day when nothing open is yours.
      </p>
      <form method="post" action={`/w/${workspaceId}/settings/assigned-digest`} noValidate>
        <CsrfInput token={csrf} />
        <div class="field check">
          <input id="field-assigned-digest" type="checkbox" name="mine" value="on" checked={mine} aria-describedby="field-assigned-digest-hint" />
          <label for="field-assigned-digest">Daily email of the open submissions assigned to me</label>
          <p class="hint" id="field-assigned-digest-hint">
            Only you: the other members choose for themselves.
          </p>
        </div>
        <button type="submit">Save daily email</button>
      </form>
    </Panel>
  );
}
