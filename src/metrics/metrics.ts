import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BacklogReading } from '../jobs/backlog.js';
import { LANES } from '../jobs/lanes.js';
import { VERSION } from '../version.js';

type CounterChild = { inc(value?: number): void };
type HistogramChild = { observe(value: number): void };
type Nested = Map<unknown, unknown>;

/** `map`'s value at `key`, made by `make` the first time. */
function kept<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const found = map.get(key);
  if (found !== undefined) return found;
  const made = make();
  map.set(key, made);
  return made;
}

function nested(map: Nested, key: unknown): Nested {
  return kept(map, key, () => new Map()) as Nested;
}

/** Where a request came in: the submit surface, the management API (`/public/v1`) or the dashboard (the rest of its port). */
export type Surface = 'submit' | 'api' | 'dashboard';
/** How a submission posted to the submit surface ended. */
export type SubmissionOutcome = 'accepted' | 'held' | 'spam' | 'dropped' | 'spam_dropped' | 'aborted';
/** How one try at a delivery ended: sent, to be tried again, or given up for good. */
export type DeliveryOutcome = 'sent' | 'retried' | 'failed';
/** Why submissions were deleted without anyone choosing them one by one: a form's retention, or erasing a person. */
export type DeletionReason = 'retention' | 'erasure';
/** How a sign-in by the OpenID provider ended (docs/operations.md, "Single sign-on"): in, asked to link, or refused and why. */
export type OidcSignInResult =
  | 'signed_in'
  | 'created'
  | 'linked'
  | 'link_asked'
  | 'confirmed'
  | 'wrong_password'
  | 'no_email'
  | 'unverified_email'
  | 'no_account'
  | 'not_matched'
  | 'disabled'
  | 'not_this_account'
  | 'provider_unreachable'
  | 'provider_refused'
  | 'invalid_callback';

/** How a sign-in with a passkey ended (docs/operations.md, metrics): in (alone, or as the second step), or refused and why. */
export type PasskeySignInResult =
  | 'signed_in'
  | 'second_factor'
  | 'expired'
  | 'replayed'
  | 'unknown'
  | 'invalid'
  | 'cloned'
  | 'disabled'
  | 'sso_only'
  | 'limited';

// Seconds: a submission on SQLite takes ~1–5 ms, a slow dashboard page a second.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/**
 * Formgate's Prometheus metrics, in a registry of their own (several apps in one test process
 * each have theirs). Built only when FORMGATE_METRICS is not off: with it off, nothing here runs.
 * Label values are bounded (route patterns, problem codes, channels), and the children a request
 * needs are looked up once and kept, so counting a request is a lookup and an increment.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly submissions: Counter<'outcome' | 'reason'>;
  private readonly outcomes: Record<SubmissionOutcome, CounterChild>;
  private readonly refusals = new Map<string, CounterChild>();
  private readonly durations: Histogram<'surface' | 'method' | 'route' | 'status_class'>;
  private readonly durationChildren: Nested = new Map();
  private readonly deliveries: Counter<'channel' | 'outcome'>;
  private readonly deliveryChildren = new Map<string, CounterChild>();
  private backlog: (() => Promise<BacklogReading>) | null = null;
  private deliveriesPaused: (() => Promise<boolean>) | null = null;
  private readonly deletions: Counter<'reason'>;
  private readonly withheldLinks: Counter<'by'>;
  private readonly filesWritten: Counter;
  private readonly fileBytesWritten: Counter;
  private readonly filesRemoved: Counter;
  private readonly fileWriteFailures: Counter;
  private readonly connectionsRefused: Counter<'surface' | 'reason'>;
  private readonly connectionsClosedIdle: Counter<'surface'>;
  private fileStore: { kind: string; reachable: () => Promise<boolean> } | null = null;
  private readonly addressChecks: Gauge;
  private readonly digestEmails: Counter;
  private readonly assignedDigests: Counter;
  private readonly hooksRemoved: Counter;
  private readonly judgeAnswers: Counter<'judge' | 'outcome'>;
  private readonly auditEvents: Counter<'group'>;
  private readonly oidcSignIns: Counter<'result'>;
  private readonly passkeySignIns: Counter<'result'>;
  private readonly signIns: Counter<'second_factor'>;
  private readonly secondFactorRefusals: Counter;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // NOTE: gauges named like counters, which `promtool check metrics` refuses; the same counts by type
    // remain (nodejs_active_handles, …_requests, …_resources), and sum() gives these totals.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    new Gauge({ name: 'formgate_info', help: 'Always 1; its label names the running version.', labelNames: ['version'], registers: [this.registry] }).set(
      { version: VERSION },
      1,
    );
    this.submissions = new Counter({
      name: 'formgate_submissions_total',
      help: 'Submissions posted to the submit surface, by outcome (accepted, held, spam, dropped by the honeypot, spam_dropped with a full spam folder, aborted by the visitor mid-post, refused) and, when refused, the problem code.',
      labelNames: ['outcome', 'reason'],
      registers: [this.registry],
    });
    this.outcomes = {
      accepted: this.submissions.labels('accepted', ''),
      held: this.submissions.labels('held', ''),
      spam: this.submissions.labels('spam', ''),
      dropped: this.submissions.labels('dropped', ''),
      spam_dropped: this.submissions.labels('spam_dropped', ''),
      aborted: this.submissions.labels('aborted', ''),
    };
    this.durations = new Histogram({
      name: 'formgate_http_request_duration_seconds',
      help: 'Time to answer a request, by surface, method, route pattern and status class.',
      labelNames: ['surface', 'method', 'route', 'status_class'],
      buckets: DURATION_BUCKETS,
      registers: [this.registry],
    });
    this.deliveries = new Counter({
      name: 'formgate_deliveries_total',
      help: 'Tries at deliveries (emails, webhooks, Slack messages) by channel and outcome: sent, retried (to be tried again later) or failed (given up).',
      labelNames: ['channel', 'outcome'],
      registers: [this.registry],
    });
    this.deletions = new Counter({
      name: 'formgate_submissions_deleted_total',
      help: 'Submissions deleted with their deliveries by a form’s retention (hourly) or by erasing a person, by reason.',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    // both shown from the start, at 0
    this.deletions.labels('retention').inc(0);
    this.deletions.labels('erasure').inc(0);
    this.auditEvents = new Counter({
      name: 'formgate_audit_events_total',
      help: 'Events written to the audit log, by the group of their action (token, member, form, submissions, …; docs/operations.md, "The audit log").',
      labelNames: ['group'],
      registers: [this.registry],
    });
    this.oidcSignIns = new Counter({
      name: 'formgate_oidc_sign_ins_total',
      help: 'Sign-ins through the OpenID provider, by result: signed_in, created, linked, link_asked, confirmed, or why refused (unverified_email, no_account, not_matched, disabled, wrong_password, provider_unreachable, invalid_callback, …).',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.passkeySignIns = new Counter({
      name: 'formgate_passkey_sign_ins_total',
      help: 'Sign-ins with a passkey, by result: signed_in (a passkey alone), second_factor (after a password), or why refused (expired, replayed, unknown, invalid, cloned, disabled, sso_only, limited).',
      labelNames: ['result'],
      registers: [this.registry],
    });
    for (const result of ['signed_in', 'second_factor']) this.passkeySignIns.labels(result).inc(0);
    this.digestEmails = new Counter({
      name: 'formgate_spam_digest_emails_total',
      help: 'Spam digest emails enqueued: one per member who wants the digest of a workspace that had spam since its last one.',
      registers: [this.registry],
    });
    this.assignedDigests = new Counter({
      name: 'formgate_assigned_digests_total',
      help: 'Daily digests of open assigned submissions enqueued: one per member who chose it and had something open and theirs in a workspace.',
      registers: [this.registry],
    });
    this.hooksRemoved = new Counter({
      name: 'formgate_hooks_removed_total',
      help: 'Subscriptions of automation platforms removed by the delivery workers, by reason: gone (the target answered 410) or lapsed (their token or key was revoked or expired, or their maker left the workspace).',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    for (const reason of ['gone', 'lapsed']) this.hooksRemoved.labels(reason).inc(0);
    this.signIns = new Counter({
      name: 'formgate_sign_ins_total',
      help: 'Dashboard sign-ins that started a session, by the second factor proved: none, app, recovery (a recovery code), passkey, remembered (a browser remembered for 30 days).',
      labelNames: ['second_factor'],
      registers: [this.registry],
    });
    for (const kind of ['none', 'app', 'recovery', 'passkey', 'remembered']) this.signIns.labels(kind).inc(0);
    this.secondFactorRefusals = new Counter({
      name: 'formgate_second_factor_refusals_total',
      help: 'Codes refused at the second step of a sign-in (wrong, used already, or past the login limits).',
      registers: [this.registry],
    });
    this.judgeAnswers = new Counter({
      name: 'formgate_spam_judge_answers_total',
      help: 'Answers of the outside spam judges a form turned on, by judge (spamassassin, akismet, disposable, same_message) and outcome (spam, ham, timeout, invalid_key, error).',
      labelNames: ['judge', 'outcome'],
      registers: [this.registry],
    });
    this.withheldLinks = new Counter({
      name: 'formgate_confirmation_links_withheld_total',
      help: 'Confirmation links to notification addresses not sent because an hourly allowance was reached: the workspace’s, the address’s, or the instance’s for workspaces made by open sign-up.',
      labelNames: ['by'],
      registers: [this.registry],
    });
    for (const by of ['workspace', 'address', 'instance']) this.withheldLinks.labels(by).inc(0);
    this.filesWritten = new Counter({
      name: 'formgate_files_written_total',
      help: 'Uploaded files stored whole in the file store (FORMGATE_FILES).',
      registers: [this.registry],
    });
    this.fileBytesWritten = new Counter({
      name: 'formgate_file_bytes_written_total',
      help: 'Bytes of uploaded files stored whole in the file store.',
      registers: [this.registry],
    });
    this.filesRemoved = new Counter({
      name: 'formgate_files_removed_total',
      help: 'Files removed from the file store (their submission deleted, or never claimed by one).',
      registers: [this.registry],
    });
    this.fileWriteFailures = new Counter({
      name: 'formgate_file_write_failures_total',
      help: 'Uploads the file store failed to store (the store unreachable or refusing); a visitor going away is not counted.',
      registers: [this.registry],
    });
    this.connectionsRefused = new Counter({
      name: 'formgate_connections_refused_total',
      help: 'Connections closed as they opened because a cap was reached: reason per_address (FORMGATE_MAX_CONNECTIONS_PER_ADDRESS) or total (FORMGATE_MAX_CONNECTIONS).',
      labelNames: ['surface', 'reason'],
      registers: [this.registry],
    });
    this.connectionsClosedIdle = new Counter({
      name: 'formgate_connections_closed_idle_total',
      help: 'New connections closed for sending no whole request within FORMGATE_FIRST_REQUEST_TIMEOUT.',
      labelNames: ['surface'],
      registers: [this.registry],
    });
    this.addressChecks = new Gauge({
      name: 'formgate_address_checks_off',
      help: '1 while FORMGATE_ALLOW_PRIVATE_WEBHOOKS (tests only) lets webhooks and chat channels reach any address, this machine and its network included; 0 otherwise. Alert on 1.',
      registers: [this.registry],
    });
    this.addressChecks.set(0);
    const metrics = this;
    new Gauge({
      name: 'formgate_file_store_up',
      help: '1 when the last probe of the file store (a small object written and deleted, at most every 30 s) succeeded, 0 otherwise; its label says folder or s3.',
      labelNames: ['kind'],
      registers: [this.registry],
      async collect() {
        const store = metrics.fileStore;
        if (store) this.set({ kind: store.kind }, (await store.reachable()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'formgate_delivery_backlog',
      help: `Deliveries due and not yet made, by lane (counted up to 10000).`,
      labelNames: ['lane'],
      registers: [this.registry],
      async collect() {
        const reading = await metrics.backlog?.();
        if (reading) for (const lane of LANES) this.set({ lane }, reading.lanes[lane].due);
      },
    });
    new Gauge({
      name: 'formgate_deliveries_paused',
      help: '1 while deliveries are paused (FORMGATE_DELIVERIES=paused or `formgate deliveries pause`): no email, webhook or Slack message leaves; 0 otherwise.',
      registers: [this.registry],
      async collect() {
        const paused = await metrics.deliveriesPaused?.();
        if (paused !== undefined) this.set(paused ? 1 : 0);
      },
    });
    new Gauge({
      name: 'formgate_delivery_oldest_due_age_seconds',
      help: 'How long the oldest due delivery has waited; 0 when none is due.',
      registers: [this.registry],
      async collect() {
        const reading = await metrics.backlog?.();
        if (reading) this.set(reading.oldestDueAgeSeconds);
      },
    });
  }

  /** Where the stopping gauge reads from: 1 from the signal on, while the drain window lets load balancers stop choosing this instance. */
  watchStopping(stopping: () => boolean): void {
    new Gauge({
      name: 'formgate_stopping',
      help: '1 once this instance has been told to stop (SIGTERM): /healthz answers 503 "stopping" while it still serves for FORMGATE_DRAIN_WINDOW; 0 otherwise.',
      registers: [this.registry],
      collect() {
        this.set(stopping() ? 1 : 0);
      },
    });
  }

  /** Where the paused gauge reads from (the delivery switch, cached). */
  watchDeliveriesPaused(read: () => Promise<boolean>): void {
    this.deliveriesPaused = read;
  }

  /** Where the backlog gauges read from (the health check's cached reading). */
  watchBacklog(read: () => Promise<BacklogReading>): void {
    this.backlog = read;
  }

  /** PostgreSQL: where the change feed's gauge reads from (made only then: SQLite has no feed). */
  watchChangeFeed(listening: () => boolean): void {
    new Gauge({
      name: 'formgate_change_feed_up',
      help: 'PostgreSQL: 1 while this instance listens for changes to forms and tokens (LISTEN formgate_changes); 0 while it reconnects, when every submission and API request reads its form or token.',
      registers: [this.registry],
      collect() {
        this.set(listening() ? 1 : 0);
      },
    });
  }

  /** FORMGATE_ALLOW_PRIVATE_WEBHOOKS is on: no address an owner chose is checked (net/outbound-guard.ts). */
  addressChecksOff(off: boolean): void {
    this.addressChecks.set(off ? 1 : 0);
  }

  /** Where the file store gauge reads from (the health check's cached probe). */
  watchFileStore(kind: string, reachable: () => Promise<boolean>): void {
    this.fileStore = { kind, reachable };
  }

  /** An uploaded file stored whole, of `bytes` bytes (files/counted-store.ts, around every store). */
  fileStored(bytes: number): void {
    this.filesWritten.inc();
    this.fileBytesWritten.inc(bytes);
  }

  /** Files removed from the store. */
  fileRemoved(count: number): void {
    if (count > 0) this.filesRemoved.inc(count);
  }

  /** Spam digest emails a run enqueued (jobs/spam-digest.ts). */
  spamDigestEmails(count: number): void {
    if (count > 0) this.digestEmails.inc(count);
  }

  /** Digests of open assigned submissions a run enqueued (jobs/assigned-digest.ts). */
  assignedDigestEmails(count: number): void {
    if (count > 0) this.assignedDigests.inc(count);
  }

  /** One outside spam judge's answer on a submission (spam/judges/outside-judges.ts). */
  spamJudged(judge: string, outcome: string): void {
    this.judgeAnswers.labels(judge, outcome).inc();
  }

  /** A confirmation link an hourly allowance kept back (services/recipients.ts). */
  confirmationLinkWithheld(by: 'workspace' | 'address' | 'instance'): void {
    this.withheldLinks.labels(by).inc();
  }

  /** A write the store failed (not one whose body the visitor cut short, nor one refused for a limit). */
  fileWriteFailed(): void {
    this.fileWriteFailures.inc();
  }

  /** A connection closed as it opened, a cap reached (web/connection-limits.ts). */
  connectionRefused(surface: 'api' | 'submit', reason: 'per_address' | 'total'): void {
    this.connectionsRefused.inc({ surface, reason });
  }

  /** A new connection closed for sending no request in time (web/connection-limits.ts). */
  connectionClosedIdle(surface: 'api' | 'submit'): void {
    this.connectionsClosedIdle.inc({ surface });
  }

  /** A submission the pipeline took (or dropped). */
  submitted(outcome: SubmissionOutcome): void {
    this.outcomes[outcome].inc();
  }

  /** A submission refused, by its problem code. */
  refused(code: string): void {
    kept(this.refusals, code, () => this.submissions.labels('refused', code)).inc();
  }

  /** A request answered: `route` is its pattern (never the raw path), `ms` its duration. */
  answered(surface: Surface, method: string, route: string, status: number, ms: number): void {
    // NOTE: nested maps, not a joined key: the submit surface's hot path makes no string per request
    const byMethod = nested(nested(this.durationChildren, surface), method);
    const byStatus = nested(byMethod, route) as Map<number, HistogramChild>;
    const child = byStatus.get(status) ?? this.durationChild(byStatus, surface, method, route, status);
    child.observe(ms / 1000);
  }

  private durationChild(byStatus: Map<number, HistogramChild>, surface: Surface, method: string, route: string, status: number): HistogramChild {
    const statusClass = STATUS_CLASSES[Math.floor(status / 100) - 1] ?? 'other';
    return kept(byStatus, status, () => this.durations.labels(surface, method, route, statusClass));
  }

  /** A delivery's try ended. */
  delivered(channel: string, outcome: DeliveryOutcome): void {
    kept(this.deliveryChildren, `${channel} ${outcome}`, () => this.deliveries.labels(channel, outcome)).inc();
  }

  /** Submissions deleted by a form's retention or by erasing a person. */
  hookRemoved(reason: 'gone' | 'lapsed'): void {
    this.hooksRemoved.labels(reason).inc();
  }

  /** A dashboard session started, with the second factor it proved (null: none). */
  signedIn(secondFactor: string | null): void {
    this.signIns.labels(secondFactor ?? 'none').inc();
  }

  /** A code was refused at the second step of a sign-in. */
  secondFactorRefused(): void {
    this.secondFactorRefusals.inc();
  }

  /** A sign-in through the OpenID provider ended. */
  oidcSignIn(result: OidcSignInResult): void {
    this.oidcSignIns.labels(result).inc();
  }

  /** A sign-in with a passkey ended (dashboard/routes/passkey-sign-in.ts). */
  passkeySignIn(result: PasskeySignInResult): void {
    this.passkeySignIns.labels(result).inc();
  }

  /** An event written to the audit log, by its action's group. */
  auditRecorded(group: string): void {
    this.auditEvents.labels(group).inc();
  }

  submissionsDeleted(reason: DeletionReason, count: number): void {
    if (count > 0) this.deletions.labels(reason).inc(count);
  }
}
