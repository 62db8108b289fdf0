import type { TemplateKind } from '../../services/templates.js';
import { ConfirmForm, Panel } from './components.js';
import { FormLayout } from './form-layout.js';
import type { Frame } from './layout.js';
import { KIND_TITLE } from './template-editor-page.js';
import { templatePath } from './templates-page.js';

/** Asks before a template is deleted, saying what the form sends afterwards. */
export function DeleteTemplatePage({ frame, form, kind }: { frame: Frame; form: { id: string; name: string; workspaceId: string }; kind: TemplateKind }) {
  return (
    <FormLayout frame={frame} form={form} tab="templates" title={`Delete the ${kind} template?`}>
      <Panel title={`Delete the ${KIND_TITLE[kind].toLowerCase()}?`} id="confirm">
        <p>
          {kind === 'notification'
            ? 'The notification returns to the default layout: every field of each submission in a table.'
            : 'The autoresponder is turned off: the people who submit the form get no answer.'}{' '}
          Its code is not kept; copy it first if you may want it again.
        </p>
        <ConfirmForm csrf={frame.csrf} action={templatePath(form.id, kind, 'delete')} button="Delete template" cancel={templatePath(form.id, kind)} />
      </Panel>
    </FormLayout>
  );
}
