import { AUTORESPONDER_KIND } from './channels/autoresponder.js';
import { CHAT_JOB_KINDS } from './channels/chat.js';
import { EMAIL_KIND } from './channels/email.js';
import { NOTIFICATION_KIND } from './channels/notification.js';
import { SLACK_KIND } from './channels/slack.js';
import { httpOriginOf } from '../net/origin.js';
import { WEBHOOK_KIND } from './channels/webhook.js';
import { HOOK_KIND } from './hook-jobs.js';
import { DESTINATION_JOB_KINDS } from './destination-jobs.js';

/**
 * A lane is the capacity a channel's jobs share in each worker: jobs of one lane never wait for the
 * slots of another, so a slow webhook receiver cannot hold up email. Every email kind goes through
 * the one SMTP transport, hence one lane.
 */
export const LANES = ['email', 'webhook', 'slack'] as const;
export type Lane = (typeof LANES)[number];

const LANE_OF_KIND: Record<string, Lane> = {
  [EMAIL_KIND]: 'email',
  [NOTIFICATION_KIND]: 'email',
  [AUTORESPONDER_KIND]: 'email',
  [WEBHOOK_KIND]: 'webhook',
  // the automation platforms' subscriptions: webhooks to their addresses
  [HOOK_KIND]: 'webhook',
  [SLACK_KIND]: 'slack',
  // owner-given URLs like a webhook's, answered as slowly: they share the webhook lane's slots
  ...Object.fromEntries(CHAT_JOB_KINDS.map((kind) => [kind, 'webhook' as const])),
  // the destinations (Airtable, Notion, Google Sheets, newsletters): HTTP APIs answered like webhooks
  ...Object.fromEntries(DESTINATION_JOB_KINDS.map((kind) => [kind, 'webhook' as const])),
};

/** The host of each hosted destination service's API: its jobs' destination (listmonk's is the owner's server: one per destination). */
const DESTINATION_SERVICE_HOSTS: Record<string, string> = {
  airtable: 'https://api.airtable.com',
  notion: 'https://api.notion.com',
  'google-sheets': 'https://sheets.googleapis.com',
  brevo: 'https://api.brevo.com',
  mailchimp: 'https://api.mailchimp.com',
};

/**
 * How many webhooks of one destination (a receiver's origin) a worker has in flight at most, in the
 * webhook lane's 16 slots, when the receiver has not answered within a second lately: one that
 * never answers holds these for its 15 s timeout (WEBHOOK_TIMEOUT_MS), and the other receivers' webhooks go on in the
 * rest. A receiver not heard from yet counts as such (jobs/destination-slots.ts).
 */
export const DESTINATION_LIMIT = 4;
/**
 * The same for a receiver that answers within a second: enough that its backlog goes out in
 * batches as large as the lane's (a cap of 4 cut a drain to one receiver to a quarter on
 * PostgreSQL), and still 2 slots short of the lane, which the other receivers always have.
 */
export const FAST_DESTINATION_LIMIT = 14;

/** The lane whose capacity a job of `kind` takes; a kind no channel knows (it fails at once) rides the email lane. */
export function laneOf(kind: string): Lane {
  return LANE_OF_KIND[kind] ?? 'email';
}

/**
 * Where a job goes, as far as outages go: the SMTP server (every email), Slack's API, or a webhook
 * URL's origin (scheme, host and port). When a try to a destination succeeds, its jobs backed off by
 * earlier failures are brought forward (job-queue.ts): the destination is answering again.
 */
export function destinationOf(kind: string, payload: unknown): string {
  const lane = laneOf(kind);
  if (lane !== 'webhook') return lane === 'email' ? 'smtp' : 'slack';
  // a chat job carries no URL (it reads its channel when sent): the form's channel of that service is its destination
  if (CHAT_JOB_KINDS.includes(kind)) {
    const formId = (payload as { formId?: unknown } | null)?.formId;
    return `chat:${kind}:${typeof formId === 'string' ? formId : ''}`;
  }
  // a destination's job carries no URL either: the service's API (one host each), or an owner's own listmonk server
  const service = DESTINATION_SERVICE_HOSTS[kind];
  if (service) return service;
  if (DESTINATION_JOB_KINDS.includes(kind)) {
    const destinationId = (payload as { destinationId?: unknown } | null)?.destinationId;
    return `${kind}:${typeof destinationId === 'string' ? destinationId : ''}`;
  }
  const url = (payload as { url?: unknown } | null)?.url;
  // no valid URL: the channel fails the job for good; it shares a destination with its likes
  return httpOriginOf(typeof url === 'string' ? url : null) ?? 'webhook';
}
