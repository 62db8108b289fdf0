import {
  DESTINATION_KINDS,
  DESTINATION_NAMES,
  DESTINATIONS_PER_FORM,
  type DestinationKind,
  type DestinationSettings,
  NEWSLETTER_KINDS,
  SECRET_NAMES,
  SETTING_FIELDS,
} from '../../domain/destinations.js';
import type { DestinationView } from '../../services/destinations.js';
import type { FieldErrors } from '../field-errors.js';
import type { FormWithPlan } from '../form-frame.js';
import { Button, ButtonLink, CsrfInput, Panel, Time } from './components.js';
import type { Frame } from './layout.js';

/** What a refused add brings back: its kind, its messages, and what was typed (never the secret). */
export interface DestinationAddState {
  kind: DestinationKind;
  errors: FieldErrors;
  values: Partial<Record<keyof DestinationSettings, string>>;
}

/** The path of a destination's page and its actions. */
export function destinationPath(formId: string, destinationId: string, action?: 'mapping' | 'test' | 'remove'): string {
  return `/forms/${formId}/destinations/${destinationId}${action ? `/${action}` : ''}`;
}

/** Each setting's label and hint, by kind where they differ. */
export function settingWords(kind: DestinationKind, name: keyof DestinationSettings): { label: string; hint: string } {
  switch (name) {
    case 'baseId':
      return { label: 'Base id', hint: 'In the base’s address: airtable.com/appXXXXXXXXXXXXXX/…, the part starting with app.' };
    case 'table':
      return { label: 'Table', hint: 'The table’s name as the base shows it (or its id, tbl…).' };
    case 'databaseId':
      return { label: 'Database', hint: 'The database’s link (its ••• menu, Copy link) or its id.' };
    case 'spreadsheetId':
      return { label: 'Spreadsheet', hint: 'The spreadsheet’s link as the browser shows it (docs.google.com/spreadsheets/d/…).' };
    case 'sheet':
      return { label: 'Tab', hint: 'The tab (sheet) rows are added to; empty: Sheet1. Its first row holds the column names.' };
    case 'listId':
      return kind === 'mailchimp'
        ? { label: 'Audience id', hint: 'Audience, Settings, Audience name and defaults: the Audience ID.' }
        : { label: 'List number', hint: kind === 'brevo' ? 'Contacts, Lists: the number (#) of the list.' : 'Lists: the list’s number (ID).' };
    case 'consentField':
      return {
        label: 'Consent field',
        hint: 'The name of the form’s checkbox for the newsletter (such as newsletter). Only a submission with it ticked is signed up.',
      };
    case 'url':
      return { label: 'listmonk address', hint: 'Your listmonk’s address, like https://lists.example.com.' };
    case 'username':
      return { label: 'API user', hint: 'In listmonk: Admin, Users, a user of type API; its name.' };
    default:
      return { label: name, hint: '' };
  }
}

/** Where each service's secret is made, said beside its field. */
export const SECRET_HINTS: Record<DestinationKind, string> = {
  airtable: 'airtable.com/create/tokens: a token with the scope data.records:write and access to this base. It starts with pat.',
  notion: 'notion.so/profile/integrations: a new internal integration’s secret (ntn_…). Then connect the database to it (its ••• menu, Connections).',
  'google-sheets':
    'Google Cloud console: a service account, Keys, Add key, JSON. Paste the whole file; then share the spreadsheet with the service account’s address as Editor.',
  brevo: 'Brevo: your name menu, SMTP & API, API keys, Generate a new API key (xkeysib-…).',
  listmonk: 'In listmonk: Admin, Users, the API user’s token (shown when it is made).',
  mailchimp: 'Mailchimp: Profile, Extras, API keys, Create A Key (it ends with your data centre, such as -us21).',
};

export function DestinationInput({
  id,
  name,
  label,
  hint,
  error,
  value,
  multiline,
}: {
  id: string;
  name: string;
  label: string;
  hint: string;
  error?: string;
  value?: string;
  multiline?: boolean;
}) {
  const described = error ? `${id}-hint ${id}-error` : `${id}-hint`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {multiline ? (
        <textarea id={id} name={name} rows={4} autocomplete="off" spellcheck={false} aria-invalid={error ? 'true' : undefined} aria-describedby={described} />
      ) : (
        <input
          id={id}
          name={name}
          type="text"
          value={value}
          autocomplete="off"
          spellcheck={false}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={described}
        />
      )}
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The fields of a kind's form: its settings and its secret (write-only: never filled in). */
export function DestinationFields({
  kind,
  prefix,
  values,
  errors,
  secretStored,
}: {
  kind: DestinationKind;
  prefix: string;
  values: Partial<Record<keyof DestinationSettings, string>>;
  errors?: FieldErrors;
  secretStored: boolean;
}) {
  const secretHint = secretStored ? `Stored; type a new one to replace it. ${SECRET_HINTS[kind]}` : SECRET_HINTS[kind];
  return (
    <>
      {SETTING_FIELDS[kind].map((name) => {
        const words = settingWords(kind, name);
        return (
          <DestinationInput key={name} id={`${prefix}-${name}`} name={name} label={words.label} hint={words.hint} error={errors?.[name]} value={values[name]} />
        );
      })}
      <DestinationInput
        id={`${prefix}-secret`}
        name="secret"
        label={SECRET_NAMES[kind]}
        hint={secretHint}
        error={errors?.secret}
        multiline={kind === 'google-sheets'}
      />
    </>
  );
}

/** How a destination's last delivery went, in a sentence. */
export function LastDelivery({ destination }: { destination: DestinationView }) {
  if (destination.lastTriedAt === null) return <p class="muted">Nothing sent yet.</p>;
  if (destination.lastStatus === 'ok')
    return (
      <p class="destination-state">
        Last delivery: sent, <Time ms={destination.lastTriedAt} />.
      </p>
    );
  return (
    <p class="destination-state">
      Last delivery: failed, <Time ms={destination.lastTriedAt} />: {destination.lastError ?? 'no reason given'}
    </p>
  );
}

/**
 * The form's destinations on its Settings page: each with what it sends to, how its last delivery
 * went, a link to its page (settings, field mapping), a test and Remove; and a form per service to
 * add one. Secrets are never shown: only that one is stored.
 */
export function DestinationsPanel({
  frame,
  form,
  destinations,
  state,
}: {
  frame: Frame;
  form: FormWithPlan;
  destinations: DestinationView[];
  state?: DestinationAddState;
}) {
  const full = destinations.length >= DESTINATIONS_PER_FORM;
  return (
    <Panel title="Destinations" id="destinations">
      <p>
        Each accepted submission is also sent to every destination here: a record in Airtable, a page in a Notion database, a row in Google Sheets, or a
        newsletter sign-up (Brevo, listmonk, Mailchimp) when the visitor ticked the consent field. A failed delivery is retried like a webhook; see the
        Deliveries tab. Tokens and keys are kept, never shown again.
      </p>
      <p class="muted">How to connect each service in a few minutes is in the destinations guide (docs/destinations.md).</p>
      {destinations.length === 0 && <p class="muted">No destinations yet.</p>}
      {destinations.map((destination) => (
        <section key={destination.id} class="destination" id={`destination-${destination.id}`} aria-labelledby={`destination-${destination.id}-heading`}>
          <h3 id={`destination-${destination.id}-heading`}>{destination.service}</h3>
          <p class="destination-state">{`Sends to ${destination.target}.`}</p>
          <LastDelivery destination={destination} />
          <div class="actions">
            <ButtonLink variant="secondary" href={destinationPath(form.id, destination.id)}>
              Settings and field mapping<span class="visually-hidden">{` of the ${destination.service} destination`}</span>
            </ButtonLink>
            <form method="post" action={destinationPath(form.id, destination.id, 'test')} class="inline-form">
              <CsrfInput token={frame.csrf} />
              <Button type="submit" variant="secondary">
                Send a test<span class="visually-hidden">{` to ${destination.service}`}</span>
              </Button>
            </form>
            <form method="post" action={destinationPath(form.id, destination.id, 'remove')} class="inline-form">
              <CsrfInput token={frame.csrf} />
              <Button type="submit" variant="danger">
                Remove<span class="visually-hidden">{` the ${destination.service} destination`}</span>
              </Button>
            </form>
          </div>
        </section>
      ))}
      <h3 id="destination-add-heading">Add a destination</h3>
      {full ? (
        <>
          {state?.errors.form && (
            <div class="alert" role="alert">
              {state.errors.form}
            </div>
          )}
          <p class="muted">{`A form has at most ${DESTINATIONS_PER_FORM} destinations: remove one to add another.`}</p>
        </>
      ) : (
        DESTINATION_KINDS.map((kind) => {
          const refused = state?.kind === kind ? state : undefined;
          return (
            <details key={kind} class="destination-add" id={`destination-add-${kind}`} open={refused ? true : undefined}>
              <summary>{`Add ${DESTINATION_NAMES[kind]}${NEWSLETTER_KINDS.includes(kind) ? ' (newsletter)' : ''}`}</summary>
              {refused?.errors.form && (
                <div class="alert" role="alert">
                  {refused.errors.form}
                </div>
              )}
              <form method="post" action={`/forms/${form.id}/settings/destinations/${kind}#destination-add-${kind}`} noValidate>
                <CsrfInput token={frame.csrf} />
                <DestinationFields
                  kind={kind}
                  prefix={`destination-add-${kind}`}
                  values={refused?.values ?? {}}
                  errors={refused?.errors}
                  secretStored={false}
                />
                <div class="actions">
                  <Button type="submit">{`Add ${DESTINATION_NAMES[kind]} destination`}</Button>
                </div>
              </form>
            </details>
          );
        })
      )}
    </Panel>
  );
}
