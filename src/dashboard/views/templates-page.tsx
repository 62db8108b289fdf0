import type { TemplateKind } from '../../services/templates.js';
import { Badge, ButtonLink, Panel, Time } from './components.js';
import { type FormTab, FormLayout, formPath } from './form-layout.js';
import type { Frame } from './layout.js';

/** A stored template as the pages show it. */
export interface TemplateState {
  updatedAt: number;
  paused: boolean;
  /** What the content check found, when it paused the autoresponder. */
  pausedReasons: string[];
}

interface TemplatesPageProps {
  frame: Frame;
  form: { id: string; name: string; workspaceId: string };
  notification: TemplateState | null;
  autoresponder: TemplateState | null;
  /** The workspace is upgraded: only then is the autoresponder sent. */
  upgraded: boolean;
  /** The instance admin stands behind the workspace (always, unless sign-up is open): else no autoresponder is sent. */
  vouched?: boolean;
}

const TAB: FormTab = 'templates';

/** Where a template's editor lives. */
export function templatePath(formId: string, kind: TemplateKind, action = ''): string {
  return `${formPath(formId, TAB)}/${kind}${action ? `/${action}` : ''}`;
}

/** A form's two emails and the state of each: the notification's layout, the autoresponder on, off or paused (and why). */
export function TemplatesPage({ frame, form, notification, autoresponder, upgraded, vouched = true }: TemplatesPageProps) {
  return (
    <FormLayout frame={frame} form={form} tab={TAB} title="Templates">
      <p class="lead">
        Two emails go out for each submission: the <strong>notification</strong> to the form’s recipients, and the <strong>autoresponder</strong> to the person
        who submitted it. Write either in Handlebars and see it filled in with your latest submission before you save.
      </p>
      <div class="grid grid-2">
        <Panel title="Notification">
          <p>
            <Badge>{notification ? 'Custom' : 'Default layout'}</Badge>
          </p>
          {notification ? (
            <p>
              Your own template, updated <Time ms={notification.updatedAt} />. Delete it to go back to the default layout.
            </p>
          ) : (
            <p>The default layout: the form’s name, the time, and every field of the submission in a table.</p>
          )}
          <p>
            <ButtonLink variant="secondary" href={templatePath(form.id, 'notification')}>
              {notification ? 'Edit the notification' : 'Customise the notification'}
            </ButtonLink>
          </p>
        </Panel>
        <Panel title="Autoresponder">
          <AutoresponderState state={autoresponder} upgraded={upgraded} vouched={vouched} />
          <p>
            <ButtonLink variant="secondary" href={templatePath(form.id, 'autoresponder')}>
              {autoresponder ? 'Edit the autoresponder' : 'Write an autoresponder'}
            </ButtonLink>
          </p>
        </Panel>
      </div>
    </FormLayout>
  );
}

/** On, off or paused, and what that means for the people who submit the form. */
export function AutoresponderState({ state, upgraded, vouched = true }: { state: TemplateState | null; upgraded: boolean; vouched?: boolean }) {
  return (
    <>
      <p>
        <Badge tone={state?.paused ? 'warning' : state ? 'accent' : 'neutral'}>{!state ? 'Off' : state.paused ? 'Paused' : 'On'}</Badge>
      </p>
      {!state && <p>No autoresponder: the people who submit the form get no answer. Write one to turn it on.</p>}
      {state && !state.paused && (
        <p>
          Each submission with an email address (an <code>email</code> field, or <code>_replyto</code>) is answered with it. Updated{' '}
          <Time ms={state.updatedAt} />.
        </p>
      )}
      {state?.paused && <PausedReasons reasons={state.pausedReasons} />}
      {state && !upgraded && (
        <p class="notice">
          This workspace is on the Free plan, which does not send the autoresponder. Upgrade the workspace to send it; until then you can write and test it.
        </p>
      )}
      {upgraded && !vouched && (
        <p class="notice" id="autoresponder-not-vouched">
          Anyone can sign up on this installation, so the autoresponder of a workspace its admin did not make is sent only once the admin upgrades the
          workspace: it writes to any address a visitor types. Until then you can write and test it.
        </p>
      )}
    </>
  );
}

/** Why the content check paused the autoresponder, and what to do about it. */
export function PausedReasons({ reasons }: { reasons: string[] }) {
  return (
    <div class="notice">
      <p>
        <strong>Paused by the content check: nobody is sent this autoresponder.</strong> It reads like marketing, which mail providers treat as spam when it
        goes to strangers. The check found:
      </p>
      {reasons.length > 0 ? (
        <ul>
          {reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      ) : (
        <p>(no reasons were kept for this template)</p>
      )}
      <p>Rewrite those parts (put a link behind words instead of showing its address) and save: each save checks the template again.</p>
    </div>
  );
}
