import { createHmac, timingSafeEqual } from 'node:crypto';

// A Pipedream source (component API: props, hooks, run, $emit), self-contained so that `pd deploy`
// takes this one file: no app to register with Pipedream, no package to install. Activating it
// subscribes its HTTP endpoint to a Formgate form's event (POST /hooks), deactivating it unsubscribes
// (DELETE /hooks/{id}); each event is emitted as Formgate's Submission, once per webhook-id.

const EVENTS = [
  { label: 'Submission created (accepted into the inbox)', value: 'submission.created' },
  { label: 'Submission marked as spam', value: 'submission.spam' },
  { label: 'Submission deleted (its id, form id and time only)', value: 'submission.deleted' },
];
const WORKSPACE = 'workspace:';
const TOLERANCE_SECONDS = 5 * 60;

export default {
  key: 'formgate-new-event',
  name: 'New Submission Event (Instant)',
  description:
    'Emits an event when a Formgate form receives a submission, flags one as spam, or loses one. Formgate posts it signed (Standard Webhooks); this source checks the signature.',
  version: '0.1.0',
  type: 'source',
  dedupe: 'unique',
  props: {
    apiAddress: {
      type: 'string',
      label: 'API address',
      description:
        "The management API's address as the workspace's Settings → Automations page shows it, e.g. `https://forms.example.com/public/v1` (the installation's address alone is completed).",
    },
    apiKey: {
      type: 'string',
      label: 'Key or token',
      description:
        'An automation-tool key (`fgak_…`) or an API token (`fg_…`) with `submissions:read` (and `forms:read`, `workspaces:read` for the form list).',
      secret: true,
    },
    event: {
      type: 'string',
      label: 'Event',
      options: EVENTS,
      default: 'submission.created',
    },
    formId: {
      type: 'string',
      label: 'Form',
      description: 'The form whose events are emitted, or every form of a workspace.',
      async options() {
        return this.formOptions();
      },
    },
    http: {
      type: '$.interface.http',
      customResponse: true,
    },
    db: '$.service.db',
  },
  methods: {
    apiBase() {
      const trimmed = String(this.apiAddress ?? '')
        .trim()
        .replace(/\/+$/, '');
      if (!/^https?:\/\//i.test(trimmed)) throw new Error(`The Formgate API address must start with http:// or https:// (it is "${trimmed}")`);
      return /\/public\/v1$/.test(trimmed) ? trimmed : `${trimmed}/public/v1`;
    },
    async request(method, path, { body, qs } = {}) {
      const url = new URL(`${this.apiBase()}${path}`);
      for (const [name, value] of Object.entries(qs ?? {})) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
      const headers = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      const parsed = text ? JSON.parse(text) : undefined;
      if (!response.ok) {
        const error = new Error(`Formgate answered ${response.status} to ${method} ${path}: ${parsed?.detail ?? parsed?.title ?? text}`);
        error.status = response.status;
        throw error;
      }
      return parsed;
    },
    async list(path, qs = {}) {
      const items = [];
      let cursor = null;
      do {
        const page = await this.request('GET', path, { qs: { ...qs, limit: 100, startingAfter: cursor ?? undefined } });
        items.push(...page.data);
        cursor = page.hasMore ? page.nextCursor : null;
      } while (cursor);
      return items;
    },
    async formOptions() {
      const workspaces = await this.list('/workspaces');
      const options = [];
      for (const workspace of workspaces) {
        options.push({ label: `Every form of ${workspace.name}`, value: `${WORKSPACE}${workspace.id}` });
        for (const form of await this.list('/forms', { workspaceId: workspace.id })) {
          options.push({ label: workspaces.length > 1 ? `${workspace.name} / ${form.name}` : form.name, value: form.id });
        }
      }
      return options;
    },
    target() {
      const chosen = String(this.formId ?? '');
      if (!chosen) throw new Error('Choose a form, or every form of a workspace');
      return chosen.startsWith(WORKSPACE) ? { workspaceId: chosen.slice(WORKSPACE.length) } : { formId: chosen };
    },
    meta(body, headers) {
      const ts = Date.parse(body.createdAt ?? body.deletedAt ?? '') || Date.now();
      return {
        id: headers?.['webhook-id'] ?? `${this.event}:${body.id}`,
        summary: `${this.event} ${body.id} (form ${body.formId})`,
        ts,
      };
    },
    /** Why a post is not Formgate's (Standard Webhooks: v1 HMAC-SHA256 of id.timestamp.body), or null. */
    signatureProblem(headers, rawBody, now = Date.now()) {
      const secret = this.db.get('hookSecret');
      if (!secret) return 'this source holds no subscription secret';
      const id = headers['webhook-id'];
      const timestamp = headers['webhook-timestamp'];
      const signatures = headers['webhook-signature'];
      if (!id || !timestamp || !signatures) return 'the webhook-id, webhook-timestamp or webhook-signature header is missing';
      const seconds = Number(timestamp);
      if (!Number.isInteger(seconds) || Math.abs(now / 1000 - seconds) > TOLERANCE_SECONDS) return 'the webhook-timestamp is too old or too far ahead';
      const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
        .update(`${id}.${timestamp}.${rawBody}`)
        .digest();
      for (const entry of String(signatures).split(' ')) {
        const [version, signature] = entry.split(',');
        if (version !== 'v1' || !signature) continue;
        const given = Buffer.from(signature, 'base64');
        if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
      }
      return 'the webhook-signature does not match';
    },
  },
  hooks: {
    /** On deploy: the newest real submission of the event, if there is one, as a first event to build a workflow on. */
    async deploy() {
      const qs = this.target();
      const sample = await this.request('GET', `/hooks/samples/${encodeURIComponent(this.event)}`, { qs });
      for (const body of sample.data) if (body.id !== 'sample') this.$emit(body, this.meta(body));
    },
    async activate() {
      const hook = await this.request('POST', '/hooks', { body: { targetUrl: this.http.endpoint, event: this.event, ...this.target() } });
      this.db.set('hookId', hook.id);
      this.db.set('hookSecret', hook.secret);
    },
    async deactivate() {
      const hookId = this.db.get('hookId');
      if (hookId) {
        try {
          await this.request('DELETE', `/hooks/${encodeURIComponent(hookId)}`);
        } catch (error) {
          if (error.status !== 404) throw error;
        }
      }
      this.db.set('hookId', null);
      this.db.set('hookSecret', null);
    },
  },
  async run(event) {
    const headers = event.headers ?? {};
    const rawBody = event.bodyRaw ?? JSON.stringify(event.body);
    const problem = this.signatureProblem(headers, rawBody);
    if (problem) {
      this.http.respond({ status: 401, body: `Formgate source: ${problem}` });
      return;
    }
    this.http.respond({ status: 200 });
    const body = typeof event.body === 'string' ? JSON.parse(event.body) : event.body;
    this.$emit(body, this.meta(body, headers));
  },
};
