import { validationError } from '../errors.js';
import type { SubmissionFilter } from '../services/submission-search.js';

/** The inbox's views by status (issue 41, item 5): open ones by default, done ones, or all. */
export const VIEW_STATES = ['open', 'done', 'all'] as const;
export type ViewState = (typeof VIEW_STATES)[number];

/** A view of the inbox as the address bar spells it: `?state=done&assignee=me`; defaults are left out. */
export interface TriageView {
  state: ViewState;
  /** '' anyone, `me`, `none` (nobody), or a member's id. */
  assignee: string;
  /** '' any, or a label's id. */
  label: string;
  /** Only unread ones (`unread=1`), only those with files (`files=1`). */
  unread: boolean;
  files: boolean;
  /** On a workspace's inbox: '' every form, or one form's id (checked by the route). */
  form: string;
}

const ID = /^[a-z0-9]{1,64}$/;

/**
 * The view a query string asks for, and the filter it makes for `userId`: open ones by default, all
 * of them for a search that names no view. An unknown state or
 * assignee is `validation_failed` (the error page's 400): they come from links and the view's own
 * form, so only an edited address has one.
 */
export function readTriageView(
  query: Record<string, unknown>,
  userId: string,
): { view: TriageView; filter: Pick<SubmissionFilter, 'state' | 'assigneeId' | 'labelId' | 'unread' | 'hasFiles'> } {
  // a search without a chosen view looks at every submission, done ones too, as a mail client's search does
  const searching = typeof query.search === 'string' && query.search.trim() !== '';
  const state = typeof query.state === 'string' && query.state !== '' ? query.state : searching ? 'all' : 'open';
  const assignee = typeof query.assignee === 'string' ? query.assignee : '';
  const label = typeof query.label === 'string' ? query.label : '';
  const form = typeof query.form === 'string' ? query.form : '';
  if (label !== '' && !ID.test(label)) throw validationError(['label: must be a label of the workspace'], 'No such view of the inbox.');
  if (form !== '' && !ID.test(form)) throw validationError(['form: must be a form of the workspace'], 'No such view of the inbox.');
  // ticked boxes send `1`; anything else is not ticked
  const unread = query.unread === '1';
  const files = query.files === '1';
  if (!(VIEW_STATES as readonly string[]).includes(state))
    throw validationError([`state: must be one of ${VIEW_STATES.join(', ')}`], 'No such view of the inbox.');
  if (assignee !== '' && assignee !== 'me' && assignee !== 'none' && !ID.test(assignee)) {
    throw validationError(['assignee: must be me, none or a member'], 'No such view of the inbox.');
  }
  const filter: Pick<SubmissionFilter, 'state' | 'assigneeId' | 'labelId' | 'unread' | 'hasFiles'> = {};
  if (label !== '') filter.labelId = label;
  if (unread) filter.unread = true;
  if (files) filter.hasFiles = true;
  if (state !== 'all') filter.state = state as 'open' | 'done';
  if (assignee === 'me') filter.assigneeId = userId;
  else if (assignee === 'none') filter.assigneeId = null;
  else if (assignee !== '') filter.assigneeId = assignee;
  return { view: { state: state as ViewState, assignee, label, unread, files, form }, filter };
}

/** The view's parameters for a link, the defaults left out. */
export function viewParams(view: TriageView): Record<string, string> {
  return {
    ...(view.state !== 'open' ? { state: view.state } : {}),
    ...(view.assignee ? { assignee: view.assignee } : {}),
    ...(view.label ? { label: view.label } : {}),
    ...(view.unread ? { unread: '1' } : {}),
    ...(view.files ? { files: '1' } : {}),
    ...(view.form ? { form: view.form } : {}),
  };
}

/** A view with nothing narrowed but its state and assignee: the view links' own. */
export function plainView(state: ViewState, assignee = ''): TriageView {
  return { state, assignee, label: '', unread: false, files: false, form: '' };
}
