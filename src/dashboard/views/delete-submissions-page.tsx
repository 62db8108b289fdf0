import type { SubmissionDetail } from '../../services/submissions.js';
import { summaryOf } from '../submission-fields.js';
import { ConfirmForm, Panel, Time } from './components.js';
import { type Frame, Layout } from './layout.js';

interface DeleteProps {
  frame: Frame;
  submissions: SubmissionDetail[];
  /** Where Cancel, and the deletion, lead back to. */
  back: string;
}

/** Asks before deleting: names each submission (when, which form, its first field), then the one button that does it. */
export function DeleteSubmissionsPage({ frame, submissions, back }: DeleteProps) {
  const count = submissions.length;
  const title = count === 1 ? 'Delete this submission?' : `Delete ${count} submissions?`;
  // spam (the spam folder's Delete) never counted against the allowance: it leaves the folder early instead
  const spam = submissions.every((s) => s.status === 'spam');
  return (
    <Layout title={title} frame={frame}>
      <Panel title="Are you sure?" id="confirm">
        <p>
          <strong>This cannot be undone.</strong> {count === 1 ? 'This submission goes' : `These ${count} submissions go`} for good
          {spam
            ? ', now rather than when the spam folder’s retention ends.'
            : `, and no longer count in searches and exports.${frame.plans.team ? '' : ' The allowance does not grow back.'}`}
        </p>
        <ul class="delete-list">
          {submissions.map((s) => {
            const first = summaryOf(s.data, 1)[0];
            return (
              <li key={s.id}>
                <Time ms={s.createdAt} /> · {s.formName}
                {first && (
                  <span class="muted">
                    {' '}
                    · {first.name}: {first.value}
                  </span>
                )}
              </li>
            );
          })}
        </ul>
        <ConfirmForm csrf={frame.csrf} action="/submissions/delete" button={count === 1 ? 'Delete submission' : `Delete ${count} submissions`} cancel={back}>
          <input type="hidden" name="back" value={back} />
          {submissions.map((s) => (
            <input type="hidden" name="id" value={s.id} key={s.id} />
          ))}
        </ConfirmForm>
      </Panel>
    </Layout>
  );
}
