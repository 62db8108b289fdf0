import { DESTINATION_NAMES, type DestinationSettings, NEWSLETTER_KINDS, SETTING_FIELDS } from '../../domain/destinations.js';
import type { DestinationView } from '../../services/destinations.js';
import type { FieldErrors } from '../field-errors.js';
import type { FormWithPlan } from '../form-frame.js';
import { Button, CsrfInput, Panel } from './components.js';
import { DestinationFields, destinationPath, LastDelivery } from './destinations-panel.js';
import { formPath, FormLayout } from './form-layout.js';
import type { Frame } from './layout.js';

export interface DestinationPageProps {
  frame: Frame;
  form: FormWithPlan;
  destination: DestinationView;
  /** The form's fields seen in its newest submissions, and those the mapping names: a row each. */
  fields: string[];
  /** A refused save of the settings: messages, and what was typed (never the secret). */
  errors?: FieldErrors;
  values?: Partial<Record<keyof DestinationSettings, string>>;
  /** A refused save of the mapping: messages by row (`mapping[2]`), and the names as typed. */
  mappingErrors?: FieldErrors;
  mapping?: string[];
}

/** Where a record destination's mapping sends a field by default, and what its column says. */
function mappingWords(view: DestinationView): { column: string; hint: string } {
  switch (view.kind) {
    case 'airtable':
      return {
        column: 'Airtable field',
        hint: 'Each form field goes to the Airtable field of the same name unless you name another here. Clear a name to leave that field out. The table must have the fields (Airtable does not make them).',
      };
    case 'notion':
      return {
        column: 'Notion property',
        hint: 'Each form field goes to the property of the same name unless you name another. A property the database lacks is made (as text) when the first submission with that field is sent. The title gets the sender’s name or address, unless you map a field to it. Clear a name to leave that field out.',
      };
    case 'google-sheets':
      return {
        column: 'Column',
        hint: 'Each form field goes to the column whose first-row name is the same unless you name another. A field with no column gets one, added at the end of the first row. Clear a name to leave that field out.',
      };
    default:
      return {
        column: view.kind === 'mailchimp' ? 'Merge field tag' : view.kind === 'brevo' ? 'Contact attribute' : 'Attribute',
        hint: `Only the email address${view.kind === 'listmonk' ? ' and the name' : ''} is sent unless you name ${view.kind === 'mailchimp' ? 'a merge field tag (such as FNAME)' : view.kind === 'brevo' ? 'a contact attribute (such as FIRSTNAME)' : 'an attribute'} for a field here.`,
      };
  }
}

/** A destination's own page: its settings (the secret write-only), its field mapping, a test and Remove. */
export function DestinationPage({ frame, form, destination, fields, errors, values, mappingErrors, mapping }: DestinationPageProps) {
  const name = DESTINATION_NAMES[destination.kind];
  const stored = Object.fromEntries(SETTING_FIELDS[destination.kind].map((key) => [key, destination.settings[key] ?? '']));
  const words = mappingWords(destination);
  const newsletter = NEWSLETTER_KINDS.includes(destination.kind);
  const mapped = new Map((destination.settings.mapping ?? []).map((entry) => [entry.field, entry.to]));
  return (
    <FormLayout
      frame={frame}
      form={form}
      tab="settings"
      title={`${name} destination`}
      back={{ href: `${formPath(form.id, 'settings')}#destinations`, label: 'Settings' }}
    >
      <Panel title={`${name} destination`} id="destination-settings">
        <p class="destination-state">{`Sends each accepted submission to ${destination.target}.`}</p>
        <LastDelivery destination={destination} />
        {destination.kind === 'google-sheets' && destination.settings.clientEmail && (
          <p class="notice" id="service-account">
            {'Share the spreadsheet with '}
            <code class="destination-address">{destination.settings.clientEmail}</code>
            {' as Editor (Share, paste the address): that is who adds the rows.'}
          </p>
        )}
        {errors?.form && (
          <div class="alert" role="alert">
            {errors.form}
          </div>
        )}
        <form method="post" action={`${destinationPath(form.id, destination.id)}#destination-settings`} noValidate>
          <CsrfInput token={frame.csrf} />
          <DestinationFields kind={destination.kind} prefix="destination" values={values ?? stored} errors={errors} secretStored />
          <div class="actions">
            <Button type="submit">{`Save ${name} settings`}</Button>
          </div>
        </form>
        <div class="actions">
          <form method="post" action={destinationPath(form.id, destination.id, 'test')} class="inline-form">
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="secondary">
              Send a test<span class="visually-hidden">{` to ${name}`}</span>
            </Button>
          </form>
          <form method="post" action={destinationPath(form.id, destination.id, 'remove')} class="inline-form">
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="danger">
              Remove<span class="visually-hidden">{` the ${name} destination`}</span>
            </Button>
          </form>
        </div>
        <p class="muted">
          {newsletter
            ? 'The test reads the list with the stored key: nobody is signed up.'
            : 'The test sends the form’s latest submission (or a sample when it has none) as a real record.'}
        </p>
      </Panel>
      <Panel title="Field mapping" id="destination-mapping">
        <p id="destination-mapping-hint">{words.hint}</p>
        {fields.length === 0 ? (
          <p class="muted">No submissions yet: the fields show here once the form has some (send a test submission from the Setup tab).</p>
        ) : (
          <form method="post" action={`${destinationPath(form.id, destination.id, 'mapping')}#destination-mapping`} noValidate>
            <CsrfInput token={frame.csrf} />
            {mappingErrors?.form && (
              <div class="alert" role="alert">
                {mappingErrors.form}
              </div>
            )}
            <div class="table-wrap">
              <table class="destination-mapping">
                <caption class="visually-hidden">{`Form fields and where each goes in ${name}`}</caption>
                <thead>
                  <tr>
                    <th scope="col">Form field</th>
                    <th scope="col">{words.column}</th>
                  </tr>
                </thead>
                <tbody>
                  {fields.map((field, i) => {
                    const id = `mapping-${i}`;
                    const error = mappingErrors?.[`mapping[${i}]`];
                    const value = mapping?.[i] ?? (mapped.has(field) ? mapped.get(field) : newsletter ? '' : field);
                    return (
                      <tr key={field}>
                        <th scope="row">
                          <label for={id}>
                            <code>{field}</code>
                            <span class="visually-hidden">{` goes to (${words.column})`}</span>
                          </label>
                          <input type="hidden" name="field" value={field} />
                        </th>
                        <td>
                          <input
                            id={id}
                            name="to"
                            type="text"
                            value={value}
                            autocomplete="off"
                            spellcheck={false}
                            aria-invalid={error ? 'true' : undefined}
                            aria-describedby={error ? `${id}-error` : 'destination-mapping-hint'}
                          />
                          {error && (
                            <p class="error" id={`${id}-error`}>
                              {error}
                            </p>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <div class="actions">
              <Button type="submit">Save field mapping</Button>
            </div>
          </form>
        )}
      </Panel>
    </FormLayout>
  );
}
