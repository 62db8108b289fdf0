/** A WebAuthn challenge already answered (migration 0044): refused again until it expires, then purged. */
export interface PasskeyChallengeTable {
  /** The challenge (base64url): unique to one ceremony, made by this server. */
  challenge: string;
  /** When the challenge expires (epoch ms): past it, it is refused anyway. */
  expiresAt: number;
}
