import type { FieldErrors } from '../field-errors.js';
import { megabytes } from '../../services/form-uploads.js';
import type { SpamFolderState } from '../../services/quarantine.js';
import { EmptyState, SearchLine, Time } from './components.js';
import { FormLayout, formPath } from './form-layout.js';
import { type Pager, PagerLinks } from './pager.js';
import type { Frame } from './layout.js';
import { type ListRow, SubmissionList } from './submission-list.js';
import { BulkForm } from './bulk-form.js';

interface SpamPageProps {
  frame: Frame;
  form: { id: string; name: string; workspaceId: string };
  rows: ListRow[];
  pager: Pager;
  retentionMs: number;
  /** How full the workspace's spam folder is against its bound, and the spam dropped past it. */
  folder: SpamFolderState;
  /** This page's address (with its search and cursor): where Not spam and Delete come back to. */
  back: string;
  /** The search as typed, and its error (too long) beside the field. */
  search: string;
  errors: FieldErrors;
}

/**
 * The form's spam folder as the inbox lists submissions: a line each (who, the first line, when),
 * searched, paged, with Not spam and Delete for the ticked ones. Why each was caught is on its page
 * (the line's link); when each goes follows from when it came, said once above the list.
 */
export function SpamPage({ frame, form, rows, pager, retentionMs, folder, back, search, errors }: SpamPageProps) {
  const path = formPath(form.id, 'spam');
  const retentionDays = Math.round(retentionMs / 86_400_000);
  const oldest = rows.at(-1);
  return (
    <FormLayout frame={frame} form={form} tab="spam" title="Spam" scripts={['select-all.js']}>
      <p class="lead">
        Never delivered or listed in the inbox; each is removed {retentionDays} days after it came
        {oldest ? (
          <>
            {' '}
            (the oldest here on <Time ms={oldest.createdAt + retentionMs} />)
          </>
        ) : null}
        . Open one to see why it was caught. <strong>Not spam</strong> moves the ticked ones into the inbox
        {frame.plans.team ? '' : ', where each counts against the allowance,'} and their deliveries go out; <strong>Delete</strong> removes them for good.
      </p>
      <DroppedNotice folder={folder} retentionDays={retentionDays} />
      <section class="panel inbox-panel" aria-labelledby="spam-heading">
        <h2 id="spam-heading" class="visually-hidden">
          {search ? 'Matching spam' : 'Spam'}
        </h2>
        <div class="inbox-tools">
          <form method="get" action={path} class="inbox-search" aria-label="Search the spam folder">
            <SearchLine value={search} errors={errors} submit="Search" clear={search ? path : null} />
          </form>
        </div>
        {rows.length === 0 ? (
          <NoSpam searched={Boolean(search)} later={pager.newest !== null} more={pager.next !== null} path={path} />
        ) : (
          <BulkForm
            action={`${path}/bulk`}
            label="Spam on this page"
            csrf={frame.csrf}
            back={back}
            ids={rows.map((row) => row.id)}
            actions={
              <span class="bulk-buttons">
                <button type="submit" name="action" value="not-spam" class="secondary small">
                  Not spam
                </button>
                <button type="submit" name="action" value="delete" class="secondary small">
                  Delete
                </button>
              </span>
            }
          >
            <SubmissionList rows={rows} select label={search ? 'Matching spam' : 'Spam'} />
          </BulkForm>
        )}
        <PagerLinks pager={pager} />
      </section>
      <FolderBound folder={folder} retentionDays={retentionDays} />
    </FormLayout>
  );
}

function NoSpam({ searched, later, more, path }: { searched: boolean; later: boolean; more: boolean; path: string }) {
  // a search checks a bounded share of the folder per page (services/spam-folder.ts SPAM_SEARCH_ROW_CAP)
  if (more) return <EmptyState>Nothing matches among the submissions this page searched; the next page searches older ones.</EmptyState>;
  if (later) return <EmptyState>No more spam.</EmptyState>;
  if (searched) {
    return (
      <EmptyState>
        <p>Nothing in the spam folder matches this search.</p>
        <p>
          <a href={path}>Clear the search</a>
        </p>
      </EmptyState>
    );
  }
  return <EmptyState>No spam caught. Whatever the filter catches waits here.</EmptyState>;
}

/** How full the workspace's spam folder is against its bound: below the list, which comes first. */
function FolderBound({ folder, retentionDays }: { folder: SpamFolderState; retentionDays: number }) {
  const { caught, bytes, cap } = folder;
  return (
    <p class="hint">
      The workspace’s spam folder keeps at most {cap.count.toLocaleString('en')} submissions or {megabytes(cap.bytes)} caught in {retentionDays} days; it holds{' '}
      {caught.toLocaleString('en')} ({megabytes(bytes)}). Past that, spam is dropped: the sender is answered as usual and nothing is kept.
    </p>
  );
}

/** When the folder was full: how much spam was dropped instead of kept, above the list. */
function DroppedNotice({ folder, retentionDays }: { folder: SpamFolderState; retentionDays: number }) {
  const { dropped } = folder;
  if (dropped === 0) return null;
  return (
    <p class="notice" role="status">
      The spam folder was full: {dropped.toLocaleString('en')} spam {dropped === 1 ? 'submission was' : 'submissions were'} dropped in the last {retentionDays}{' '}
      days instead of kept.
    </p>
  );
}
