import type { ComponentChildren } from 'preact';
import type { FieldErrors } from '../field-errors.js';
import { fieldAnchor, type SettingsSection, sectionWords } from '../form-settings-sections.js';
import { CsrfInput, Panel } from './components.js';

/** What a section's form needs of the page: where it posts, the token, and what just happened to it. */
export interface SectionState {
  action: string;
  csrf: string;
  /** The section just saved (its confirmation is shown in it). */
  saved?: SettingsSection;
  /** The section whose list was edited but not saved yet. */
  unsaved?: SettingsSection;
}

/**
 * One section of a form's settings: a panel holding its own form, which posts only its own fields
 * (`section` names them), so saving it leaves every other section as stored.
 */
export function SettingsSectionPanel({ id, state, children }: { id: SettingsSection; state: SectionState; children: ComponentChildren }) {
  const words = sectionWords(id);
  return (
    <Panel title={words.title} id={id}>
      <form method="post" action={state.action} noValidate class="settings-form">
        <CsrfInput token={state.csrf} />
        <input type="hidden" name="section" value={id} />
        {/* NOTE: the first submit button is the one Enter in a field presses: saving, never a list's Remove or Pause. */}
        <button type="submit" name="action" value="save" hidden>
          {words.button}
        </button>
        {state.saved === id && (
          <p class="notice" role="status" id={`${id}-saved`}>
            {`${words.saved}.`}
          </p>
        )}
        {children}
        {state.unsaved === id && (
          <p class="notice" role="status">
            The list changed; press <strong>{words.button}</strong> to keep it.
          </p>
        )}
        <div class="actions">
          <button type="submit" name="action" value="save">
            {words.button}
          </button>
        </div>
      </form>
    </Panel>
  );
}

/** The links to the page's sections, at its top: the page is long, and each section saves on its own. */
export function SettingsIndex({ extra }: { extra: { id: string; title: string }[] }) {
  return (
    <nav class="settings-index" id="settings-index" aria-labelledby="settings-index-heading">
      <h2 id="settings-index-heading">On this page</h2>
      <ul>
        {[...SECTION_LINKS, ...extra].map((link) => (
          <li key={link.id}>
            <a href={`#${link.id}`}>{link.title}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

const SECTION_LINKS = (
  ['general', 'notifications', 'spam-protection', 'retention', 'file-uploads', 'after-submission', 'email-wording', 'form-state'] as const
).map((id) => ({ id, title: sectionWords(id).title }));

/**
 * A refused save, at the top of the page: nothing was saved, and each problem as a link to its field
 * (where the same sentence stands beside it).
 */
export function SettingsProblems({ errors, section }: { errors?: FieldErrors; section?: SettingsSection }) {
  if (!errors) return null;
  const entries = Object.entries(errors).filter(([field, message]) => field !== 'form' && message);
  if (entries.length === 0) return null;
  const where = section ? ` in ${sectionWords(section).title}` : '';
  return (
    <div class="alert" role="alert" id="settings-problems">
      <p>
        <strong>{`Nothing was saved${where}:`}</strong>{' '}
        {entries.length === 1 ? 'correct this setting and save again.' : `correct these ${entries.length} settings and save again.`}
      </p>
      <ul>
        {entries.map(([field, message]) => (
          <li key={field}>
            <a href={`#${fieldAnchor(field)}`}>{message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}
