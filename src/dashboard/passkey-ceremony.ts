import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../errors.js';
import type { Ceremony } from '../services/passkeys.js';
import { parseCeremony } from '../services/passkey-ceremonies.js';

/**
 * The passkey ceremony a browser started (its challenge, purpose, account and expiry), in a signed,
 * httpOnly cookie of that browser: the options route sets it, the answer's route takes it (and
 * clears it). The server keeps nothing until an answer comes, then keeps the challenge as answered
 * (passkey_challenges), so a replayed answer is refused on every instance. One ceremony per browser
 * at a time: a second tab's replaces the first's, which then asks to try again.
 */
export class PasskeyCeremonyCookie {
  readonly name: string;

  constructor(private readonly secure: boolean) {
    this.name = secure ? '__Host-fg_passkey' : 'fg_passkey';
  }

  /**
   * Answers a ceremony's options as JSON (for assets/passkeys.js) and keeps the ceremony in the
   * cookie; a refusal (too many passkeys, an address without passkeys) as `{ detail }` with its status.
   */
  async sendOptions(reply: FastifyReply, make: () => Promise<{ options: object; ceremony: Ceremony }>): Promise<FastifyReply> {
    reply.header('cache-control', 'no-store');
    try {
      const { options, ceremony } = await make();
      this.start(reply, ceremony);
      return reply.send(options);
    } catch (error) {
      if (error instanceof ProblemError && error.status < 500) return reply.code(error.status).send({ detail: error.detail });
      throw error;
    }
  }

  start(reply: FastifyReply, ceremony: Ceremony): void {
    reply.setCookie(this.name, JSON.stringify(ceremony), { ...this.options(), expires: new Date(ceremony.expiresAt) });
  }

  /** The browser's ceremony, forgotten by it as it is read; null when none, expired, or not signed by us. */
  take(request: FastifyRequest, reply: FastifyReply): Ceremony | null {
    const raw = request.cookies[this.name];
    if (!raw) return null;
    reply.clearCookie(this.name, this.options());
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return null;
    return parseCeremony(unsigned.value);
  }

  private options() {
    return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: this.secure, signed: true };
  }
}
