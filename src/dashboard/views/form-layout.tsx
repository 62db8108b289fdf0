import { UNREAD_CAP } from '../../services/submission-marks.js';
import { SPAM_COUNT_CAP } from '../../services/spam-folder.js';
import type { ComponentChildren } from 'preact';
import type { FormStateName } from '../../services/form-behaviour.js';
import { FormStateNotice } from './form-behaviour-panel.js';
import { type Frame, Layout } from './layout.js';

/** The pages of one form, in the order of its tabs. */
export type FormTab = 'submissions' | 'spam' | 'setup' | 'settings' | 'templates' | 'deliveries';

const TABS: { tab: FormTab; label: string; path: string }[] = [
  { tab: 'submissions', label: 'Submissions', path: '' },
  { tab: 'spam', label: 'Spam', path: '/spam' },
  { tab: 'setup', label: 'Setup', path: '/setup' },
  { tab: 'settings', label: 'Settings', path: '/settings' },
  { tab: 'templates', label: 'Templates', path: '/templates' },
  { tab: 'deliveries', label: 'Deliveries', path: '/deliveries' },
];

/** Where a form's tab lives. */
export function formPath(formId: string, tab: FormTab = 'submissions'): string {
  return `/forms/${formId}${TABS.find((t) => t.tab === tab)!.path}`;
}

interface FormLayoutProps {
  frame: Frame;
  /**
   * `unread`: the form's unread submissions (capped at UNREAD_CAP), said on its Submissions tab;
   * `spam`: what its spam folder holds (capped at SPAM_COUNT_CAP), said on its Spam tab; `state`: a
   * paused, closed or full form says so under its name (form-frame.ts).
   */
  form: { id: string; name: string; workspaceId: string; unread?: number; spam?: number; state?: FormStateName };
  tab: FormTab;
  /** The page's own name (the window title says "<title> · <form>"); the heading is the form's name. */
  title: string;
  /** The heading when it is not the form's name (a submission's page: who sent it). */
  heading?: string;
  /** Where the way back leads instead of the workspace's forms, and its words (a submission's page: its list, named by the form). */
  back?: { href: string; label: string };
  children: ComponentChildren;
  scripts?: string[];
}

/** "3 unread" as a small badge ("99+ unread" past the count's cap). */
export function UnreadCount({ count }: { count: number }) {
  const shown = count >= UNREAD_CAP ? `${UNREAD_CAP - 1}+` : String(count);
  return (
    <span class="unread-count">
      {shown}
      <span class="visually-hidden"> unread</span>
    </span>
  );
}

/** "12" beside the Spam tab, quiet (spam waits; it asks nothing), "999+" past the count's cap. */
export function SpamCount({ count }: { count: number }) {
  const shown = count >= SPAM_COUNT_CAP ? `${SPAM_COUNT_CAP - 1}+` : count.toLocaleString('en-US');
  return (
    <span class="spam-count">
      {shown}
      <span class="visually-hidden"> in the folder</span>
    </span>
  );
}

/** A form's page: back to the workspace's forms, the form's name, its tabs, then the tab's content. */
export function FormLayout({ frame, form, tab, title, heading, back, children, scripts }: FormLayoutProps) {
  return (
    <Layout title={`${title} · ${form.name}`} heading={heading ?? form.name} frame={frame} scripts={scripts}>
      <p class="breadcrumb">
        <a href={back?.href ?? `/w/${form.workspaceId}`}>← {back?.label ?? 'All forms'}</a>
      </p>
      <nav aria-label="Form" class="tabs">
        {TABS.map((t) => (
          <a key={t.tab} href={formPath(form.id, t.tab)} aria-current={t.tab === tab ? 'page' : undefined}>
            {t.label}
            {t.tab === 'submissions' && form.unread ? (
              <>
                {' '}
                <UnreadCount count={form.unread} />
              </>
            ) : null}
            {t.tab === 'spam' && form.spam ? (
              <>
                {' '}
                <SpamCount count={form.spam} />
              </>
            ) : null}
          </a>
        ))}
      </nav>
      <FormStateNotice state={form.state} />
      {children}
    </Layout>
  );
}
