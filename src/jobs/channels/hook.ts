import DataLoader from 'dataloader';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../../db/database.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { withFileLinks } from '../../domain/file-values.js';
import type { OutboundGuard } from '../../net/outbound-guard.js';
import { hookBody, type HookPayload } from '../hook-jobs.js';
import type { Channel, DeliveryReceipt, Job } from './channel.js';
import type { DeliveryFiles } from './submission-files.js';
import { throwUnlessDelivered, WEBHOOK_TIMEOUT_MS, WEBHOOK_USER_AGENT } from './webhook.js';

/** A hook as a try reads it: its address and secret now, and whether what made it still may. */
interface LiveHook {
  id: string;
  workspaceId: string;
  targetUrl: string;
  secret: string;
  /** Why the hook may no longer post (its token revoked, its maker gone), or null. */
  lapsed: string | null;
}

/** The header that names the event, beside Standard Webhooks' own. */
export const HOOK_EVENT_HEADER = 'formgate-event';

/**
 * Posts 'hook' jobs, the automation platforms' subscriptions (services/hooks.ts), as the webhook
 * channel posts a form's webhook: signed per Standard Webhooks (with the hook's own secret), through
 * the one outbound gate (SSRF), retried on the webhook schedule. Each try reads the hook: a removed
 * hook sends nothing; a hook whose token or key was revoked or expired, or whose maker left the
 * workspace, is removed; a target that answers 410 Gone is unsubscribed (the platforms' rule).
 * How each try went is kept on the hook, for the automations page.
 */
export class HookChannel implements Channel {
  private readonly hooks: DataLoader<string, LiveHook | undefined>;

  constructor(
    private readonly database: Database,
    private readonly outbound: OutboundGuard,
    private readonly files: DeliveryFiles | null,
    /** Told when a hook is removed: the target answered 410 (`gone`), or what made it may no longer (`lapsed`). */
    private readonly removed: (
      hook: { id: string; workspaceId: string; targetUrl: string },
      reason: 'gone' | 'lapsed',
      why: string,
    ) => void | Promise<void> = () => {},
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {
    this.hooks = new DataLoader(
      async (ids) => {
        const found = new Map((await this.read(ids)).map((hook) => [hook.id, hook]));
        return ids.map((id) => found.get(id));
      },
      { cache: false },
    );
  }

  async send(job: Job): Promise<DeliveryReceipt> {
    const payload = job.payload as Partial<HookPayload> | null;
    if (!payload || typeof payload.hookId !== 'string' || typeof payload.event !== 'string' || typeof payload.submissionId !== 'string') {
      throw new DeliveryError('the subscription job names no hook, event or submission', { permanent: true });
    }
    const hook = await this.hooks.load(payload.hookId);
    if (!hook) throw new DeliveryError('not sent: the subscription was removed', { permanent: true });
    if (hook.lapsed) {
      await this.database.db.deleteFrom('hooks').where('id', '=', hook.id).execute();
      await this.removed(hook, 'lapsed', hook.lapsed);
      throw new DeliveryError(`not sent: ${hook.lapsed}, so the subscription is removed`, { permanent: true, target: hook.targetUrl });
    }
    try {
      const receipt = await this.post(job, payload as HookPayload, hook);
      await this.note(hook.id, 'ok', null);
      return receipt;
    } catch (err) {
      const error = err instanceof DeliveryError ? err : new DeliveryError(err instanceof Error ? err.message : String(err), { permanent: false, cause: err });
      if (error.statusCode === 410) {
        await this.database.db.deleteFrom('hooks').where('id', '=', hook.id).execute();
        await this.removed(hook, 'gone', 'the target answered 410 Gone');
        throw new DeliveryError('the target answered 410 Gone: the platform unsubscribed, so the subscription is removed', {
          permanent: true,
          statusCode: 410,
          target: hook.targetUrl,
        });
      }
      await this.note(hook.id, 'failed', error.message);
      throw error.target === undefined ? error.at(hook.targetUrl) : error;
    }
  }

  private async post(job: Job, payload: HookPayload, hook: LiveHook): Promise<DeliveryReceipt> {
    const now = new Date();
    const fields = payload.fields && this.files ? await this.linked(job, payload.fields, now) : payload.fields;
    const body = JSON.stringify(hookBody(payload.event, payload.submissionId, payload.formId, payload.at, fields));
    let signature: string;
    try {
      signature = new Webhook(hook.secret).sign(job.idempotencyKey, now, body);
    } catch (err) {
      throw new DeliveryError(`the subscription's secret is unusable: ${(err as Error).message}`, { permanent: true, cause: err });
    }
    const answer = await this.outbound.post(
      hook.targetUrl,
      body,
      {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'webhook-id': job.idempotencyKey,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
        [HOOK_EVENT_HEADER]: payload.event,
      },
      { timeoutMs: this.timeoutMs },
    );
    throwUnlessDelivered(answer.status, answer.retryAfter, now.getTime());
    return { statusCode: answer.status, target: hook.targetUrl };
  }

  /** The fields with the submission's files linked for 7 days from now, as a webhook's are. */
  private async linked(job: Job, fields: Record<string, unknown>, now: Date): Promise<Record<string, unknown>> {
    const files = this.files!;
    const stored = await files.of(job.submissionId, fields);
    return withFileLinks(fields, stored, (file) => files.signedUrl(file, now.getTime()));
  }

  /** How the last try went, on the hook (bookkeeping: a failure to write it changes nothing of the delivery). */
  private async note(hookId: string, status: 'ok' | 'failed', error: string | null): Promise<void> {
    await this.database.db
      .updateTable('hooks')
      .set({ lastTriedAt: Date.now(), lastStatus: status, lastError: error === null ? null : error.slice(0, 500) })
      .where('id', '=', hookId)
      .execute()
      .catch(() => undefined);
  }

  /** The hooks of a claim's jobs as they are now, with what made each. */
  private async read(ids: readonly string[]): Promise<LiveHook[]> {
    const now = Date.now();
    const rows = await this.database.db
      .selectFrom('hooks')
      .innerJoin('users', 'users.id', 'hooks.createdBy')
      .leftJoin('tokens', 'tokens.id', 'hooks.tokenId')
      .leftJoin('automationKeys', 'automationKeys.id', 'hooks.automationKeyId')
      .leftJoin('workspaceMembers', (join) =>
        join.onRef('workspaceMembers.workspaceId', '=', 'hooks.workspaceId').onRef('workspaceMembers.userId', '=', 'hooks.createdBy'),
      )
      .select(['hooks.id', 'hooks.workspaceId', 'hooks.targetUrl', 'hooks.secret', 'hooks.tokenId', 'hooks.automationKeyId'])
      .select(['users.disabledAt', 'tokens.revokedAt as tokenRevokedAt', 'tokens.expiresAt as tokenExpiresAt'])
      .select(['automationKeys.revokedAt as keyRevokedAt', 'workspaceMembers.userId as memberId'])
      .where('hooks.id', 'in', [...ids])
      .execute();
    return rows.map((row) => {
      let lapsed: string | null = null;
      if (row.memberId === null) lapsed = 'the member who subscribed has left the workspace';
      else if (row.disabledAt !== null) lapsed = 'the account that subscribed is disabled';
      else if (row.tokenId !== null && row.tokenRevokedAt !== null) lapsed = 'the API token it was made with was revoked';
      else if (row.tokenId !== null && row.tokenExpiresAt !== null && Number(row.tokenExpiresAt) <= now) lapsed = 'the API token it was made with has expired';
      else if (row.automationKeyId !== null && row.keyRevokedAt !== null) lapsed = 'the automation-tool key it was made with was revoked';
      return { id: row.id, workspaceId: row.workspaceId, targetUrl: row.targetUrl, secret: row.secret, lapsed };
    });
  }
}
