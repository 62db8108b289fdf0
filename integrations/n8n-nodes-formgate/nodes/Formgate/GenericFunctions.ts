import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  IDataObject,
  IExecuteFunctions,
  IHookFunctions,
  IHttpRequestMethods,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  INodePropertyOptions,
  IWebhookFunctions,
} from 'n8n-workflow';

// Nothing of n8n-workflow is imported at run time (types only): the package has no dependency to
// resolve when n8n loads it, whichever n8n version or install layout it runs in.

export const CREDENTIAL = 'formgateApi';

/** The events a subscription can hear (Formgate's POST /hooks). */
export const EVENTS = [
  { name: 'Submission Created', value: 'submission.created', description: 'A submission accepted into the inbox (after the spam filter)' },
  { name: 'Submission Marked as Spam', value: 'submission.spam', description: 'A submission the spam filter put in the spam folder' },
  { name: 'Submission Deleted', value: 'submission.deleted', description: 'A submission someone deleted (its ID, form ID and time only)' },
];

/** A dropdown value that stands for every form of a workspace rather than one form. */
export const WORKSPACE_PREFIX = 'workspace:';

type Context = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/** One page of a Formgate list (the spec's page envelope). */
export interface Page {
  data: IDataObject[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** The API's address from the credential: without trailing slashes, with /public/v1 added when only the installation's address was given. */
export function apiBase(baseUrl: string): string {
  const trimmed = String(baseUrl ?? '')
    .trim()
    .replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(trimmed)) throw new Error(`The Formgate API address must start with http:// or https:// (it is "${trimmed}")`);
  return /\/public\/v1$/.test(trimmed) ? trimmed : `${trimmed}/public/v1`;
}

/** Calls Formgate's management API with the node's credential; answers the parsed JSON (undefined for 204). */
export async function formgateRequest(this: Context, method: IHttpRequestMethods, path: string, options: { body?: IDataObject; qs?: IDataObject } = {}) {
  const credentials = await this.getCredentials<{ baseUrl: string }>(CREDENTIAL);
  const request: IHttpRequestOptions = {
    method,
    url: `${apiBase(credentials.baseUrl)}${path}`,
    json: true,
    headers: { accept: 'application/json' },
  };
  if (options.body) request.body = options.body;
  if (options.qs) request.qs = options.qs;
  return (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL, request)) as unknown;
}

/** Reads a list: every item (`limit` undefined) or at most `limit`, following `nextCursor` as `startingAfter`. */
export async function formgateList(this: Context, path: string, qs: IDataObject = {}, limit?: number): Promise<IDataObject[]> {
  const items: IDataObject[] = [];
  let cursor: string | null = null;
  do {
    const want = limit === undefined ? 100 : Math.min(100, limit - items.length);
    const query: IDataObject = { ...qs, limit: want };
    if (cursor) query.startingAfter = cursor;
    const page = (await formgateRequest.call(this, 'GET', path, { qs: query })) as Page;
    items.push(...page.data);
    cursor = page.hasMore ? page.nextCursor : null;
  } while (cursor && (limit === undefined || items.length < limit));
  return limit === undefined ? items : items.slice(0, limit);
}

/** The forms the credential reaches, for a dropdown: with "every form of …" entries when `withWorkspaces`. */
export async function formOptions(this: ILoadOptionsFunctions, withWorkspaces: boolean): Promise<INodePropertyOptions[]> {
  const workspaces = await formgateList.call(this, '/workspaces');
  const several = workspaces.length > 1;
  const options: INodePropertyOptions[] = [];
  for (const workspace of workspaces) {
    const workspaceName = String(workspace.name);
    if (withWorkspaces) {
      options.push({
        name: `Every form of ${workspaceName}`,
        value: `${WORKSPACE_PREFIX}${String(workspace.id)}`,
        description: 'Every form of the workspace, present and future',
      });
    }
    const forms = await formgateList.call(this, '/forms', { workspaceId: workspace.id });
    for (const form of forms) {
      options.push({ name: several ? `${workspaceName} / ${String(form.name)}` : String(form.name), value: String(form.id) });
    }
  }
  return options;
}

/** Whether an HTTP error from n8n's request helpers is a 404. */
export function isNotFound(error: unknown): boolean {
  const e = error as {
    httpCode?: string | number;
    response?: { status?: number };
    cause?: { status?: number; response?: { status?: number } };
    status?: number;
  };
  const status = e?.httpCode ?? e?.response?.status ?? e?.status ?? e?.cause?.status ?? e?.cause?.response?.status;
  return String(status) === '404';
}

/** How far a Standard Webhooks timestamp may be from now, in seconds (the standard's advice). */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/**
 * Checks a Standard Webhooks signature (https://www.standardwebhooks.com): `webhook-signature`
 * holds space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`
 * keyed with the secret's base64 part (after `whsec_`). Answers why it fails, or null.
 */
export function signatureProblem(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string, now = Date.now()): string | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!id || !timestamp || !signatures) return 'the webhook-id, webhook-timestamp or webhook-signature header is missing';
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(now / 1000 - seconds) > SIGNATURE_TOLERANCE_SECONDS) return 'the webhook-timestamp is too old or too far ahead';
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'the webhook-signature does not match';
}
