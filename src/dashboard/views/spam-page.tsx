import type { FolderRow, SpamFolderState } from '../../services/quarantine.js';
import { megabytes } from '../../services/form-uploads.js';
import { summaryOf, timeText } from '../submission-fields.js';
import { CsrfInput, EmptyState, Panel, Time } from './components.js';
import { FormLayout } from './form-layout.js';
import { type Pager, PagerLinks } from './inbox-page.js';
import type { Frame } from './layout.js';
import { SpamReasons } from './submission-page.js';

interface SpamPageProps {
  frame: Frame;
  form: { id: string; name: string; workspaceId: string };
  rows: FolderRow[];
  pager: Pager;
  retentionDays: number;
  retentionMs: number;
  /** How full the workspace's spam folder is against its bound, and the spam dropped past it. */
  folder: SpamFolderState;
  /** This page's address (with its cursor): where Not spam comes back to. */
  back: string;
}

/** The form's spam folder: what the filter caught, why, when it goes, and Not spam for each. */
export function SpamPage({ frame, form, rows, pager, retentionDays, retentionMs, folder, back }: SpamPageProps) {
  return (
    <FormLayout frame={frame} form={form} tab="spam" title="Spam">
      <p class="lead">
        Submissions the spam filter caught: never delivered or listed in the inbox, and removed {retentionDays} days after they came. <strong>Not spam</strong>{' '}
        moves one into the inbox: {frame.plans.team ? '' : 'it counts against the workspace’s allowance and '}its deliveries go out.
      </p>
      <SpamFolderBound folder={folder} retentionDays={retentionDays} />
      <Panel title="Caught as spam" id="spam">
        {rows.length === 0 ? (
          <EmptyState>{pager.newest ? 'No more spam.' : 'No spam caught. Whatever the filter catches waits here.'}</EmptyState>
        ) : (
          <FolderTable rows={rows}>
            {(row) => (
              <>
                <td data-label="Why caught">
                  <SpamReasons reasons={row.spamReasons} />
                </td>
                <td data-label="Removed on">
                  <Time ms={row.createdAt + retentionMs} />
                </td>
                <td data-label="">
                  <form method="post" action={`/submissions/${row.id}/not-spam`}>
                    <CsrfInput token={frame.csrf} />
                    <input type="hidden" name="back" value={back} />
                    <button type="submit" class="secondary">
                      Not spam<span class="visually-hidden">: the submission of {timeText(row.createdAt)}</span>
                    </button>
                  </form>
                </td>
              </>
            )}
          </FolderTable>
        )}
        <PagerLinks pager={pager} />
      </Panel>
    </FormLayout>
  );
}

/** How full the workspace's spam folder is, and (when it was full) how much spam was dropped instead of kept. */
function SpamFolderBound({ folder, retentionDays }: { folder: SpamFolderState; retentionDays: number }) {
  const { caught, bytes, dropped, cap } = folder;
  return (
    <>
      <p class="hint">
        The workspace’s spam folder keeps at most {cap.count.toLocaleString('en')} submissions or {megabytes(cap.bytes)} caught in {retentionDays} days; it
        holds {caught.toLocaleString('en')} ({megabytes(bytes)}). Past that, spam is dropped: the sender is answered as usual and nothing is kept.
      </p>
      {dropped > 0 ? (
        <p class="notice" role="status">
          The spam folder was full: {dropped.toLocaleString('en')} spam {dropped === 1 ? 'submission was' : 'submissions were'} dropped in the last{' '}
          {retentionDays} days instead of kept.
        </p>
      ) : null}
    </>
  );
}

/** A folder's table: when it came (a link to it), its first fields, then the folder's own columns. */
export function FolderTable({
  rows,
  children,
  extra = ['Why caught', 'Removed on', ''],
}: {
  rows: FolderRow[];
  children: (row: FolderRow) => preact.ComponentChildren;
  extra?: string[];
}) {
  return (
    <div class="table-wrap listing">
      <table class="stack folder">
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">Content</th>
            {extra.map((name) => (
              <th scope="col" key={name}>
                {name || <span class="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td data-label="Received">
                <a href={`/submissions/${row.id}`}>
                  <Time ms={row.createdAt} />
                </a>
              </td>
              <td data-label="Content">
                <Summary data={row.data} />
              </td>
              {children(row)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Summary({ data }: { data: unknown }) {
  const fields = summaryOf(data);
  if (fields.length === 0) return <span class="muted">No fields</span>;
  return (
    <ul class="summary">
      {fields.map((field) => (
        <li key={field.name}>
          <span class="summary-name">{field.name}:</span> {field.value}
        </li>
      ))}
    </ul>
  );
}
