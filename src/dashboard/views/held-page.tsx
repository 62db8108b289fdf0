import type { Workspace } from '../../services/workspaces.js';
import type { FolderRow } from '../../services/quarantine.js';
import { EmptyState, Panel } from './components.js';
import { FormLayout, formPath } from './form-layout.js';
import { type Pager, PagerLinks } from './pager.js';
import { SubmissionList } from './submission-list.js';
import type { Frame } from './layout.js';
import { HeldExplanation, TeamHeldExplanation } from './submission-page.js';

interface HeldPageProps {
  frame: Frame;
  form: { id: string; name: string; workspaceId: string };
  workspace: Pick<Workspace, 'plan'>;
  rows: FolderRow[];
  pager: Pager;
}

/** A form's held submissions: what holds them and what releases them. */
export function HeldPage({ frame, form, workspace, rows, pager }: HeldPageProps) {
  return (
    <FormLayout frame={frame} form={form} tab="submissions" title="Held submissions">
      <p class="breadcrumb">
        <a href={formPath(form.id)}>← Submissions</a>
      </p>
      {frame.plans.team ? <TeamHeldExplanation /> : <HeldExplanation plan={workspace.plan} />}
      <Panel title="Held submissions" id="held">
        {rows.length === 0 ? (
          <EmptyState>
            {pager.newest
              ? 'No more held submissions.'
              : frame.plans.team
                ? 'No submissions are held.'
                : 'No submissions are held: every one that came fits the allowance.'}
          </EmptyState>
        ) : (
          <SubmissionList rows={rows} label="Held submissions" />
        )}
        <PagerLinks pager={pager} />
      </Panel>
    </FormLayout>
  );
}
