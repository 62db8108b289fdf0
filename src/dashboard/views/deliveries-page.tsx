import { type DeliveryTry, type FormDelivery, writtenToFile } from '../../services/deliveries.js';
import { Badge, type BadgeTone, Breakable, Button, CsrfInput, EmptyState, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { FormLayout, formPath } from './form-layout.js';
import type { Frame } from './layout.js';
import { deliveryKindName, folderAndFile } from './delivery-words.js';
import { PagerLinks } from './pager.js';

/** The log's filters, as the address bar spells them (`?status=failed`). */
export const DELIVERY_FILTERS = ['all', 'waiting', 'failed', 'delivered'] as const;
export type DeliveryFilter = (typeof DELIVERY_FILTERS)[number];

interface DeliveriesPageProps {
  frame: Frame;
  form: { id: string; name: string; workspaceId: string; webhookDisabledAt: number | null; webhookDisabledReason: string | null };
  filter: DeliveryFilter;
  deliveries: FormDelivery[];
  /** The next page's address, null on the last page. */
  next: string | null;
  /** This page's own address (filter and page), where a retry comes back to. */
  here: string;
  /** Whether this is a later page (a link back to the first one is shown). */
  paged: boolean;
  /** A refused retry (the delivery is no longer failed): said at the top. */
  problem?: string;
}

const FILTER_LABELS: Record<DeliveryFilter, string> = { all: 'All', waiting: 'Waiting', failed: 'Failed', delivered: 'Delivered' };

const EMPTY: Record<DeliveryFilter, string> = {
  all: 'No deliveries yet.',
  waiting: 'Nothing is waiting to be delivered.',
  failed: 'No failed deliveries.',
  delivered: 'Nothing has been delivered yet.',
};

const STATUS: Record<FormDelivery['status'], { label: string; tone: BadgeTone }> = {
  pending: { label: 'Waiting', tone: 'neutral' },
  failed: { label: 'Failed', tone: 'danger' },
  done: { label: 'Delivered', tone: 'success' },
};

// NOTE: not "Delivered": without FORMGATE_SMTP_URL an email only went to the outbox folder.
const WRITTEN: { label: string; tone: BadgeTone } = { label: 'Written to a file', tone: 'warning' };

const OUTCOMES: Record<DeliveryTry['outcome'], string> = {
  ok: 'Delivered',
  retry: 'Failed, tried again later',
  failed: 'Failed for good',
  interrupted: 'Cut off (the worker stopped)',
  in_progress: 'Under way',
};

// An error longer than this is cut in the table; the whole text is one click away.
const ERROR_SHOWN = 120;

const ms = (iso: string) => Date.parse(iso);

/** "Webhook to https://…": what and where, as one phrase (a Slack message names no destination). */
function What({ delivery }: { delivery: FormDelivery }) {
  return (
    <span>
      <strong>{deliveryKindName(delivery.kind)}</strong>
      {delivery.to !== null && (
        <>
          {' to '}
          <Breakable text={delivery.to} />
        </>
      )}
      {delivery.to === null && delivery.kind === 'autoresponder' && ' to the submitter'}
    </span>
  );
}

/** A status code or an error, the error cut when long with the whole of it in a disclosure. */
function Answer({ statusCode, error }: { statusCode: number | null; error: string | null }) {
  if (statusCode === null && error === null) return <span class="muted">No answer yet</span>;
  const long = error !== null && error.length > ERROR_SHOWN;
  return (
    <div class="delivery-answer">
      {statusCode !== null && <span class="status-code">{statusCode}</span>}{' '}
      {error !== null &&
        (long ? (
          <details class="full-error">
            <summary>{`${error.slice(0, ERROR_SHOWN)}…`}</summary>
            <p>{error}</p>
          </details>
        ) : (
          <span>{error}</span>
        ))}
    </div>
  );
}

/** The last answer the receiver gave: the last try's, else the job's own last error (a try not recorded). */
function LastAnswer({ delivery }: { delivery: FormDelivery }) {
  const last = [...delivery.tries].reverse().find((t) => t.outcome !== 'in_progress');
  if (delivery.status === 'done') {
    if (last?.writtenTo) return <WrittenTo file={last.writtenTo} />;
    // when the receiver took it, and what it said (the SMTP server's reply line)
    return (
      <div class="delivery-answer">
        {last?.response ? <span class="smtp-response">{last.response}</span> : last?.statusCode != null && <span class="status-code">{last.statusCode}</span>}{' '}
        <span class="muted">Accepted {last?.finishedAt ? <Time ms={ms(last.finishedAt)} /> : null}</span>
      </div>
    );
  }
  return <Answer statusCode={last?.statusCode ?? null} error={last?.error ?? delivery.lastError} />;
}

/** An email that no one received: no SMTP server is configured, so it is in a file of the outbox folder. */
export function WrittenTo({ file }: { file: string }) {
  const { folder, name } = folderAndFile(file);
  return (
    <div class="delivery-answer">
      Written to <code class="file-path">{folder}</code>
      <span class="muted sub-line">
        as <code class="file-path">{name}</code>, not sent: no SMTP server is set up
      </span>
    </div>
  );
}

function Tries({ delivery }: { delivery: FormDelivery }) {
  const count = delivery.tries.length;
  if (count === 0) return <span class="muted">Not tried yet</span>;
  return (
    <details class="tries">
      <summary>
        {count} {count === 1 ? 'try' : 'tries'}
      </summary>
      <ol>
        {delivery.tries.map((t) => (
          <li key={t.startedAt}>
            <Time ms={ms(t.startedAt)} />: {t.writtenTo ? 'Written to a file' : OUTCOMES[t.outcome]}
            {t.statusCode !== null && (
              <>
                {' · '}
                <span class="status-code">{t.statusCode}</span>
              </>
            )}
            {t.target !== null && (
              <>
                {' · to '}
                <Breakable text={t.target} />
              </>
            )}
            {t.error !== null && <p class="try-error">{t.error}</p>}
          </li>
        ))}
      </ol>
    </details>
  );
}

function Status({ delivery }: { delivery: FormDelivery }) {
  const status = writtenToFile(delivery) ? WRITTEN : STATUS[delivery.status];
  const underWay = delivery.tries.at(-1)?.outcome === 'in_progress';
  return (
    <div>
      <Badge tone={status.tone}>{underWay ? 'Sending' : status.label}</Badge>
      {delivery.nextTryAt !== null && !underWay && (
        <p class="next-try">
          Next try <Time ms={ms(delivery.nextTryAt)} />
        </p>
      )}
    </div>
  );
}

/** The submission as the inbox names it: who sent it and its first words, then when; its page a click away. */
function SubmissionName({ delivery, id }: { delivery: FormDelivery; id: string }) {
  return (
    <div class="delivery-submission">
      <a href={`/submissions/${encodeURIComponent(id)}`}>{delivery.sender ?? 'No name given'}</a>
      {delivery.firstLine !== '' && <span class="delivery-first-line">{delivery.firstLine}</span>}
      <span class="muted sub-line">
        <Time ms={ms(delivery.submittedAt)} />
      </span>
    </div>
  );
}

function DeliveryTable({ deliveries, csrf, formId, here }: { deliveries: FormDelivery[]; csrf: string; formId: string; here: string }) {
  const columns: Column<FormDelivery>[] = [
    { label: 'Delivery', cell: (d) => <What delivery={d} /> },
    { label: 'Submission', cell: (d) => (d.submissionId === null ? <span class="muted">None</span> : <SubmissionName delivery={d} id={d.submissionId} />) },
    { label: 'Status', cell: (d) => <Status delivery={d} /> },
    { label: 'Last answer', cell: (d) => <LastAnswer delivery={d} /> },
    { label: 'Tries', cell: (d) => <Tries delivery={d} /> },
    { label: 'Actions', hideLabel: true, cell: (d) => d.status === 'failed' && <RetryButton delivery={d} csrf={csrf} formId={formId} here={here} /> },
  ];
  return <DataTable label="Deliveries" class="deliveries" columns={columns} rows={deliveries} rowKey={(d) => d.id} wrapClass="listing" />;
}

/** Sends a failed delivery again, then comes back to this page of the log. */
function RetryButton({ delivery, csrf, formId, here }: { delivery: FormDelivery; csrf: string; formId: string; here: string }) {
  return (
    <form method="post" action={`${formPath(formId, 'deliveries')}/${encodeURIComponent(delivery.id)}/retry`}>
      <CsrfInput token={csrf} />
      <input type="hidden" name="back" value={here} />
      <Button type="submit" variant="secondary">
        Retry
        <span class="visually-hidden">
          {' '}
          {deliveryKindName(delivery.kind).toLowerCase()}
          {delivery.to !== null ? ` to ${delivery.to}` : ''}
        </span>
      </Button>
    </form>
  );
}

/** The status filters: links, so the filter lives in the address bar (and in the history). */
function Filters({ formId, filter }: { formId: string; filter: DeliveryFilter }) {
  return (
    <nav aria-label="Show deliveries" class="filters">
      {DELIVERY_FILTERS.map((f) => (
        <a key={f} href={`${formPath(formId, 'deliveries')}${f === 'all' ? '' : `?status=${f}`}`} aria-current={f === filter ? 'page' : undefined}>
          {FILTER_LABELS[f]}
        </a>
      ))}
    </nav>
  );
}

/** Says that the form's webhook is turned off (its receiver answered 410 Gone), and how to turn it on again. */
export function WebhookOff({ form }: { form: { id: string; webhookDisabledAt: number | null; webhookDisabledReason: string | null } }) {
  if (form.webhookDisabledAt === null) return null;
  return (
    <div class="alert" role="status">
      The webhook is turned off since <Time ms={form.webhookDisabledAt} />
      {form.webhookDisabledReason ? `: ${form.webhookDisabledReason}` : ''}. Nothing is posted to it until you{' '}
      <a href={`${formPath(form.id, 'settings')}#field-webhookUrl`}>save the webhook settings</a> again; then Retry all failed sends what was missed.
    </div>
  );
}

/** A form's delivery log: every email, webhook and Slack message of its submissions, with its tries; Retry on a failed one. */
export function DeliveriesPage({ frame, form, filter, deliveries, next, here, paged, problem }: DeliveriesPageProps) {
  const anyFailed = deliveries.some((d) => d.status === 'failed');
  return (
    <FormLayout frame={frame} form={form} tab="deliveries" title={filter === 'all' ? 'Deliveries' : `${FILTER_LABELS[filter]} deliveries`}>
      {problem && (
        <div class="alert" role="alert">
          {problem}
        </div>
      )}
      <WebhookOff form={form} />
      <p class="lead">
        Every notification email, autoresponder, webhook and Slack message of this form's submissions, newest submission first. A failed try is tried again
        later: an email or a chat message up to 10 tries over about an hour and a half, a webhook 10 tries over about three days (unless its receiver asks for a
        later time). A delivery that failed for good can be sent again with Retry. Every try, a retry too, uses the form's settings as they are then: a webhook
        goes to the form's webhook URL as it is set now.
      </p>
      <Panel title="Delivery log" id="delivery-log">
        <div class="log-controls">
          <Filters formId={form.id} filter={filter} />
          {anyFailed && (
            <form method="post" action={`${formPath(form.id, 'deliveries')}/retry-failed`}>
              <CsrfInput token={frame.csrf} />
              <input type="hidden" name="back" value={here} />
              <Button type="submit">Retry all failed</Button>
            </form>
          )}
        </div>
        {deliveries.length === 0 ? (
          <EmptyState>
            <p>{paged ? 'No more deliveries.' : EMPTY[filter]}</p>
            {filter === 'all' && !paged && (
              <p>
                A submission's notification emails, autoresponder, webhook and Slack message show here as soon as it arrives. Choose where they go in{' '}
                <a href={formPath(form.id, 'settings')}>Settings</a>.
              </p>
            )}
          </EmptyState>
        ) : (
          <DeliveryTable deliveries={deliveries} csrf={frame.csrf} formId={form.id} here={here} />
        )}
        <PagerLinks
          pager={{ next, newest: paged ? `${formPath(form.id, 'deliveries')}${filter === 'all' ? '' : `?status=${filter}`}` : null }}
          firstText="First page"
        />
      </Panel>
    </FormLayout>
  );
}
