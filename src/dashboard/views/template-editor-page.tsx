import type { TemplateKind } from '../../services/templates.js';
import type { TemplateError } from '../template-errors.js';
import { Badge, Button, ButtonLink, CsrfInput, Panel, Time } from './components.js';
import { FormLayout, formPath } from './form-layout.js';
import type { Frame } from './layout.js';
import { AutoresponderState, type TemplateState, templatePath } from './templates-page.js';

/** A placeholder to insert: its code, and what it prints when that is not obvious. */
export interface Placeholder {
  code: string;
  note?: string;
}

export interface TemplateEditorProps {
  frame: Frame;
  form: { id: string; name: string; workspaceId: string };
  kind: TemplateKind;
  /** What the editor holds: the stored code, a starting point, or what was just posted. */
  code: string;
  stored: TemplateState | null;
  /** The fields seen in the form's submissions; empty when it has none (the sample's are listed). */
  fields: Placeholder[];
  /** No submission yet: the preview and the test use the sample. */
  sample: boolean;
  upgraded: boolean;
  /** The instance admin stands behind the workspace (always, unless sign-up is open). */
  vouched?: boolean;
  /** Why the code was not saved: its problems, each with its line when known. */
  errors?: TemplateError[];
  /** A failure that is not the code's (the content checker unreachable). */
  alert?: string;
}

export const KIND_TITLE: Record<TemplateKind, string> = { notification: 'Notification template', autoresponder: 'Autoresponder template' };
export const PREVIEW_FRAME = 'template-preview';

const STANDARD: Placeholder[] = [
  { code: '{{data}}', note: 'every field, one per line' },
  { code: '{{#each data}}{{@key}}: {{this}}\n{{/each}}', note: 'each field’s name and value, laid out your way' },
  { code: '{{#if data.name}}…{{/if}}', note: 'only when a field was sent' },
];

// A notification's own: the uploaded files (an autoresponder never links to them).
const FILES: Placeholder = {
  code: '{{#each files}}<a href="{{url}}">{{name}}</a> ({{sizeText}})\n{{/each}}',
  note: 'the uploaded files, each linked to the submission’s page (a login is asked there)',
};

// A notification's own too: the submission's page in the dashboard (never in an autoresponder: it goes to a stranger).
const SUBMISSION_URL: Placeholder = {
  code: '<a href="{{submissionUrl}}">Open in Formgate</a>',
  note: 'the submission’s page in the dashboard (a login is asked there)',
};

/** The editor of one of a form's templates: code with its placeholders, save, delete, the live preview, and a test to oneself. */
export function TemplateEditorPage(props: TemplateEditorProps) {
  const { frame, form, kind, stored } = props;
  return (
    <FormLayout frame={frame} form={form} tab="templates" title={KIND_TITLE[kind]} scripts={['template-editor.js']}>
      <p>
        <a href={formPath(form.id, 'templates')}>← Templates</a>
      </p>
      <Panel title={KIND_TITLE[kind]} id="state">
        {kind === 'autoresponder' ? (
          <AutoresponderState state={stored} upgraded={props.upgraded} vouched={props.vouched} />
        ) : (
          <NotificationState stored={stored} />
        )}
      </Panel>
      {/* the code and its preview side by side on a wide screen, the preview under the code on a narrow one (issue 41, item 11) */}
      <div class="template-columns">
        <CodePanel {...props} />
        <Panel title="Preview" id="preview">
          <p class="hint">
            The email as it would be sent, rendered by the code that sends it and filled in with{' '}
            {props.sample ? 'sample data (the form has no submission yet)' : 'your latest submission'}. It follows your typing; without JavaScript, press{' '}
            <strong>Refresh preview</strong>.
          </p>
          <iframe name={PREVIEW_FRAME} title="Preview of the email" sandbox="" src={templatePath(form.id, kind, 'preview')} class="preview-frame" />
        </Panel>
      </div>
      <TestPanel frame={frame} formId={form.id} kind={kind} stored={stored} sample={props.sample} />
    </FormLayout>
  );
}

function NotificationState({ stored }: { stored: TemplateState | null }) {
  if (stored) {
    return (
      <p>
        <Badge>Custom</Badge> Updated <Time ms={stored.updatedAt} />. Notifications are sent with this template; delete it to go back to the default layout.
      </p>
    );
  }
  return (
    <p>
      <Badge tone="neutral">Default layout</Badge> Notifications use the default layout. The code below is that layout written as a template: change it and save
      to make it yours.
    </p>
  );
}

function CodePanel({ frame, form, kind, code, stored, fields, sample, errors, alert }: TemplateEditorProps) {
  const invalid = errors !== undefined && errors.length > 0;
  return (
    <Panel title="Code" id="code-panel">
      {invalid && (
        <div class="alert" role="alert" id="code-errors">
          <p>
            Not saved: the template has {errors.length === 1 ? 'a problem' : `${errors.length} problems`}.{' '}
            {stored ? 'The saved template is kept.' : 'Nothing was stored.'}
          </p>
          <ul>
            {errors.map((error) => (
              <li key={`${error.line}:${error.message}`}>
                {error.line !== null ? (
                  <a href="#code" data-line={String(error.line)}>
                    Line {error.line}
                  </a>
                ) : (
                  'Template'
                )}
                : {error.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {alert && (
        <div class="alert" role="alert">
          {alert}
        </div>
      )}
      <form method="post" action={templatePath(form.id, kind)} id="template-form">
        <CsrfInput token={frame.csrf} />
        <div class="editor-grid">
          <div class="field">
            <label for="code">Template code</label>
            <p class="hint" id="code-hint">
              HTML with Handlebars placeholders: <code>{'{{data.name}}'}</code> prints the field <code>name</code>, escaped. Blocks <code>if</code>,{' '}
              <code>unless</code>, <code>each</code> and <code>with</code> work; style with <code>style</code> attributes.
            </p>
            <textarea
              id="code"
              name="code"
              class="code-editor"
              rows={22}
              spellcheck={false}
              autocomplete="off"
              autocapitalize="off"
              wrap="soft"
              aria-describedby={invalid ? 'code-errors code-hint' : 'code-hint'}
              aria-invalid={invalid ? 'true' : undefined}
            >
              {code}
            </textarea>
          </div>
          <PlaceholderList fields={fields} sample={sample} kind={kind} />
        </div>
        <div class="actions">
          <button type="submit">Save template</button>
          <Button type="submit" variant="secondary" formAction={templatePath(form.id, kind, 'preview')} formTarget={PREVIEW_FRAME} id="refresh-preview">
            Refresh preview
          </Button>
          {stored && (
            <ButtonLink variant="danger" href={templatePath(form.id, kind, 'delete')}>
              Delete template
            </ButtonLink>
          )}
        </div>
      </form>
    </Panel>
  );
}

function PlaceholderList({ fields, sample, kind }: { fields: Placeholder[]; sample: boolean; kind: TemplateKind }) {
  return (
    <section class="placeholders" aria-labelledby="placeholders-heading">
      <h3 id="placeholders-heading">Placeholders</h3>
      <p class="hint">
        {sample
          ? 'No submission yet: these are the sample’s fields. Your form’s own appear here once it has submissions.'
          : 'The fields of your latest 50 submissions.'}{' '}
        Insert one at the cursor, or copy it.
      </p>
      <PlaceholderItems items={fields} />
      <h3>Every field</h3>
      <PlaceholderItems items={kind === 'notification' ? [...STANDARD, FILES, SUBMISSION_URL] : STANDARD} />
      <p id="insert-status" class="visually-hidden" aria-live="polite" />
    </section>
  );
}

function PlaceholderItems({ items }: { items: Placeholder[] }) {
  return (
    <ul class="placeholder-list">
      {items.map((item) => (
        <li key={item.code}>
          <code>{item.code}</code>
          {item.note && <span class="muted"> {item.note}</span>}
          <Button type="button" variant="secondary" small data-insert={item.code} hidden>
            Insert<span class="visually-hidden"> {item.code}</span>
          </Button>
        </li>
      ))}
    </ul>
  );
}

function TestPanel({
  frame,
  formId,
  kind,
  stored,
  sample,
}: {
  frame: Frame;
  formId: string;
  kind: TemplateKind;
  stored: TemplateState | null;
  sample: boolean;
}) {
  const sendable = stored !== null || kind === 'notification';
  return (
    <Panel title="Send me a test" id="test">
      {sendable ? (
        <form method="post" action={templatePath(formId, kind, 'test')}>
          <CsrfInput token={frame.csrf} />
          <p>
            Sends the <strong>saved</strong> {stored ? 'template' : 'default layout'} (not unsaved changes), filled in with{' '}
            {sample ? 'the sample data' : 'your latest submission'}, to <strong>{frame.account.email}</strong> only. Its subject starts with “[Test]”. Up to 10
            tests an hour.
          </p>
          <Button type="submit" variant="secondary">
            Send me a test
          </Button>
        </form>
      ) : (
        <p>Save the autoresponder first: the test sends the saved template to you.</p>
      )}
    </Panel>
  );
}
