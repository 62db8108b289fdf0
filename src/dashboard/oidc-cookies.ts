import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MembershipGrant } from '../domain/membership-rules.js';
import type { Config } from '../config/config.js';
import { type SessionCookie, sessionCookie } from './session.js';

/** The sign-in under way at the provider: what its callback must match (openid-client checks them). */
export interface OidcFlow {
  state: string;
  nonce: string;
  verifier: string;
  /** Where to go once signed in (checked by safeNext). */
  next: string;
  /** `confirm`: a signed-in person proving again who they are (services/oidc-client.ts, `maxAge`); bound to their session. */
  purpose: 'sign-in' | 'confirm';
  session: string | null;
  expiresAt: number;
}

/** A verified email matched an account with a password: the link waits for it ("Link your account"). */
export interface PendingLink {
  userId: string;
  email: string;
  issuer: string;
  subject: string;
  /** What the membership rules granted at the callback, applied once linked. */
  grants: MembershipGrant[];
  next: string;
  expiresAt: number;
}

/** A fresh sign-in at the provider proved the session's person again (for making an API token without a password). */
interface Confirmation {
  session: string;
  at: number;
  expiresAt?: number;
}

/** The flow must come back, and the link be given its password, within this. */
const FLOW_FOR_MS = 10 * 60_000;
/** How long a confirmation by the provider counts. */
export const CONFIRMED_FOR_MS = 10 * 60_000;

/**
 * The single sign-on's short-lived cookies, signed (plugin.ts registers @fastify/cookie with the
 * installation's keys), httpOnly, SameSite=Lax (the provider's redirect back is a top-level GET
 * from another site, which Lax lets through), Secure and `__Host-` on https.
 */
export class OidcCookies {
  private readonly flowName: string;
  private readonly linkName: string;
  private readonly confirmedName: string;

  constructor(private readonly session: SessionCookie) {
    const prefix = session.secure ? '__Host-' : '';
    this.flowName = `${prefix}fg_oidc_flow`;
    this.linkName = `${prefix}fg_oidc_link`;
    this.confirmedName = `${prefix}fg_oidc_confirmed`;
  }

  setFlow(reply: FastifyReply, flow: Omit<OidcFlow, 'expiresAt'>): void {
    const expiresAt = Date.now() + FLOW_FOR_MS;
    reply.setCookie(this.flowName, JSON.stringify({ ...flow, expiresAt }), this.options(new Date(expiresAt)));
  }

  /** The flow this browser started, or null (none, expired, or not signed by us); read once: the callback drops it. */
  takeFlow(request: FastifyRequest, reply: FastifyReply): OidcFlow | null {
    const flow = this.read<OidcFlow>(request, this.flowName);
    reply.clearCookie(this.flowName, this.options());
    if (!flow || typeof flow.state !== 'string' || typeof flow.nonce !== 'string' || typeof flow.verifier !== 'string') return null;
    return flow;
  }

  setLink(reply: FastifyReply, link: Omit<PendingLink, 'expiresAt'>): void {
    const expiresAt = Date.now() + FLOW_FOR_MS;
    reply.setCookie(this.linkName, JSON.stringify({ ...link, expiresAt }), this.options(new Date(expiresAt)));
  }

  link(request: FastifyRequest): PendingLink | null {
    const link = this.read<PendingLink>(request, this.linkName);
    return link && typeof link.userId === 'string' && Array.isArray(link.grants) ? link : null;
  }

  dropLink(reply: FastifyReply): void {
    reply.clearCookie(this.linkName, this.options());
  }

  setConfirmed(reply: FastifyReply, sessionIdHash: string): void {
    const confirmation: Confirmation = { session: sessionIdHash, at: Date.now() };
    reply.setCookie(this.confirmedName, JSON.stringify(confirmation), this.options(new Date(confirmation.at + CONFIRMED_FOR_MS)));
  }

  /** Whether this session's person signed in again at the provider within the last 10 minutes. */
  confirmedRecently(request: FastifyRequest): boolean {
    const confirmation = this.read<Confirmation>(request, this.confirmedName);
    const session = request.account?.session.idHash;
    return confirmation !== null && session !== undefined && confirmation.session === session && Date.now() - confirmation.at < CONFIRMED_FOR_MS;
  }

  private read<T extends { expiresAt?: number }>(request: FastifyRequest, name: string): T | null {
    const raw = request.cookies[name];
    if (!raw) return null;
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return null;
    try {
      const value = JSON.parse(unsigned.value) as T;
      if (typeof value !== 'object' || value === null) return null;
      if (value.expiresAt !== undefined && !(value.expiresAt > Date.now())) return null;
      return value;
    } catch {
      return null;
    }
  }

  private options(expires?: Date) {
    return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: this.session.secure, signed: true, ...(expires ? { expires } : {}) };
  }
}

/**
 * Whether this session's person signed in again at the provider within the last 10 minutes
 * (`/login/oidc/confirm?next=…`): what the token form may take in place of a password from an
 * account that has none (made by single sign-on).
 */
export function confirmedByProvider(request: FastifyRequest, config: Pick<Config, 'publicUrl'>): boolean {
  return new OidcCookies(sessionCookie(config)).confirmedRecently(request);
}
