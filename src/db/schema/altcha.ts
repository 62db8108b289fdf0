/** A challenge of the ALTCHA CAPTCHA already answered (migration 0028): refused again until it expires, then purged. */
export interface AltchaSpentChallengeTable {
  /** The challenge's signature: unique to it, and only this server can make one. */
  id: string;
  /** When the challenge expires (epoch ms): past it, it is refused anyway. */
  expiresAt: number;
}
