// The one gate of every request Formgate makes to an address someone other than the operator chose
// (issue 39, item 4): a form's webhook and its test, the chat channels and their tests, the webhooks
// of imported forms. Each call site used to pass the allow list (or not) on its own, and the test
// webhook and the chat channels did not: they refused what the admin page had allowed.
import ipaddr from 'ipaddr.js';
import { inAllowedNetwork, NO_ALLOWED_TARGETS, webhookUrlProblem, type WebhookAllowList } from './public-address.js';
import { postJsonSafely, type HostLookup, type SafePostResult } from './safe-http.js';

export interface OutboundPolicy {
  /** FORMGATE_ALLOW_PRIVATE_WEBHOOKS: no address check at all (tests only; `formgate serve` warns). */
  allowPrivate: boolean;
  /** The admin page's list and FORMGATE_WEBHOOK_ALLOW, combined; read at each use (a cached setting). */
  allow?: () => WebhookAllowList;
  /** For tests: resolve host names without DNS. */
  lookup?: HostLookup;
}

/** How long one call may take and how much of the answer is kept (safe-http.ts's defaults otherwise). */
export interface OutboundLimits {
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** POST unless said (safe-http.ts). */
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT';
}

/**
 * Decides, with the same allow list at write time and at call time, which addresses an owner's URL
 * may reach, and makes the call: public addresses always; private networks and hosts only when the
 * admin page or FORMGATE_WEBHOOK_ALLOW lists them.
 */
export class OutboundGuard {
  constructor(private readonly policy: OutboundPolicy) {}

  /** Whether the tests-only switch is on, so that no address is checked. */
  get checksNothing(): boolean {
    return this.policy.allowPrivate;
  }

  /** The list as it stands now. */
  allowList(): WebhookAllowList {
    return this.policy.allow?.() ?? NO_ALLOWED_TARGETS;
  }

  /** The write-time check of a URL an owner typed (webhook, chat channel, imported form): the problem, or null. */
  urlProblem(url: string): string | null {
    return webhookUrlProblem(url, this.policy.allowPrivate, this.allowList());
  }

  /**
   * Whether the URL's host is one the operator listed by name, or a literal address inside a listed
   * network: such a host may stand in for a chat service's own (a Mattermost or Rocket.Chat taking
   * Slack's format). With the tests-only switch on, every host may.
   */
  listsHostOf(url: URL): boolean {
    if (this.policy.allowPrivate) return true;
    const allow = this.allowList();
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (ipaddr.isValid(host)) return inAllowedNetwork(host, allow);
    return allow.hosts.includes(host.replace(/\.$/, '').toLowerCase());
  }

  /**
   * POSTs to an owner's URL, every address the host resolves to checked against the same rule and
   * list (safe-http.ts); a refusal is a permanent DeliveryError that says where to allow it.
   */
  post(url: string, body: string, headers: Record<string, string>, limits: OutboundLimits = {}): Promise<SafePostResult> {
    return postJsonSafely(url, body, headers, { allowPrivate: this.policy.allowPrivate, allow: this.allowList(), lookup: this.policy.lookup, ...limits });
  }

  /**
   * POSTs to an endpoint the operator configured (FORMGATE_TELEGRAM_API_URL): not held to the
   * public-address rule, as the operator may point it at a stand-in or a proxy of their own network.
   */
  postToOperatorEndpoint(url: string, body: string, headers: Record<string, string>, limits: OutboundLimits = {}): Promise<SafePostResult> {
    return postJsonSafely(url, body, headers, { allowPrivate: true, lookup: this.policy.lookup, ...limits });
  }
}

/**
 * What `formgate serve` says at warn level when FORMGATE_ALLOW_PRIVATE_WEBHOOKS is on: a switch for
 * tests that lets any owner's webhook or chat channel reach this machine and its network (issue 39,
 * item 5: it had been silent). Null when it is off.
 */
export function addressChecksOffWarning(allowPrivate: boolean): string | null {
  if (!allowPrivate) return null;
  return (
    'FORMGATE_ALLOW_PRIVATE_WEBHOOKS is on: webhooks and chat channels may reach ANY address, this machine and its private network included ' +
    '(cloud metadata services, databases, admin pages), with no check against server-side request forgery. It is meant for tests only: ' +
    'unset it, and list the networks or hosts your own services use on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW'
  );
}
