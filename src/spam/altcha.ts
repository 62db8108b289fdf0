import { type Challenge, createChallenge, randomInt, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { Keyring } from '../keyring.js';
import type { CaptchaOutcome } from './captcha.js';

/** The field the ALTCHA widget adds to the form (its default `name`). */
export const ALTCHA_FIELD = 'altcha';
/**
 * The highest counter a challenge may hide: a visitor's browser tries SHA-256 hashes from 0 up to it,
 * half of it on average. About a second on a typical phone (docs/captcha.md says how it was chosen).
 */
export const ALTCHA_MAX_NUMBER = 100_000;
/** How long a challenge may be solved and sent: long enough to write a message after solving it. */
export const ALTCHA_TTL_MS = 10 * 60_000;
/** A widget's answer is about 700 characters; anything much longer is not one, and is not read. */
export const MAX_ALTCHA_ANSWER_LENGTH = 2048;

// NOTE: one plain SHA-256 per try: the server's own check is then one hash (and one HMAC), never work a visitor chooses.
const ALGORITHM = 'SHA-256';
const COST = 1;

/** Where the challenges already answered are kept until they expire, for every instance to see. */
export interface SpentChallenges {
  /** Marks the challenge `id` spent until `expiresAt` (epoch ms); false when it already was. */
  spend(id: string, expiresAt: number): Promise<boolean>;
}

/**
 * ALTCHA, the proof-of-work CAPTCHA Formgate runs itself: challenges signed with a key derived from
 * the installation's keyring (so every instance checks every other's, and a rotated secret still
 * checks what it signed), each naming its form and expiring, each answer taken once.
 */
export class Altcha {
  private readonly keys: Keyring;

  constructor(
    keyring: Keyring,
    private readonly spent: SpentChallenges,
    private readonly maxNumber = ALTCHA_MAX_NUMBER,
  ) {
    this.keys = keyring.derive('altcha-challenge');
  }

  /** A new challenge for a visitor of `formId`'s page; `now` is when it was issued (its expiry follows from it). */
  async challenge(formId: string, now = Date.now()): Promise<Challenge> {
    return createChallenge({
      algorithm: ALGORITHM,
      cost: COST,
      deriveKey,
      counter: randomInt(this.maxNumber),
      data: { form: formId },
      expiresAt: Math.floor((now + ALTCHA_TTL_MS) / 1000),
      hmacSignatureSecret: this.keys.current,
    });
  }

  /**
   * Whether `answer` (the widget's field) solves a challenge issued here for `formId`, still valid
   * and not used before; a valid one is spent. Never throws for anything the visitor sent.
   */
  async verify(formId: string, answer: string | undefined): Promise<CaptchaOutcome> {
    if (!answer?.trim())
      return { ok: false, reason: 'missing', detail: `This form requires a CAPTCHA (the ${ALTCHA_FIELD} field was empty); complete it and submit again.` };
    if (answer.length > MAX_ALTCHA_ANSWER_LENGTH) {
      return refused(`is longer than ${MAX_ALTCHA_ANSWER_LENGTH} characters, so it is not a real one`);
    }
    const payload = parsePayload(answer);
    if (!payload) return refused('is not an ALTCHA solution');
    const { challenge, solution } = payload;
    const verdict = await this.check(challenge, solution);
    if (verdict === 'expired') return refused(`has expired (a challenge must be answered within ${ALTCHA_TTL_MS / 60_000} minutes)`);
    if (verdict === 'forged') return refused('was not issued by this server');
    if (verdict === 'wrong') return refused('is not a solution of its challenge');
    if (challenge.parameters.data?.form !== formId) return refused('was issued for another form');
    const expiresAt = (challenge.parameters.expiresAt ?? 0) * 1000;
    if (!(await this.spent.spend(challenge.signature, expiresAt))) return refused('was already used for a submission');
    return { ok: true };
  }

  /** The library's verdict under the current key, then each previous one (only a forged signature is worth another try). */
  private async check(challenge: SignedChallenge, solution: unknown): Promise<'ok' | 'expired' | 'forged' | 'wrong'> {
    for (const secret of this.keys.all) {
      try {
        // NOTE: expiry and the HMAC are checked before the one hash: a forged challenge costs no hashing
        const result = await verifySolution({ challenge, solution: solution as never, deriveKey, hmacSignatureSecret: secret });
        if (result.expired) return 'expired';
        if (result.invalidSignature) continue;
        return result.verified ? 'ok' : 'wrong';
      } catch {
        // a signed challenge always parses: one that throws (odd hex, odd types) was not made here
        return 'forged';
      }
    }
    return 'forged';
  }
}

interface SignedChallenge extends Challenge {
  signature: string;
}

/** The widget's field: base64 of `{ challenge: { parameters, signature }, solution }`; null when it is not that shape. */
function parsePayload(answer: string): { challenge: SignedChallenge; solution: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(answer, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(value) || !isRecord(value.challenge) || !isRecord(value.solution)) return null;
  const { parameters, signature } = value.challenge;
  // only what this server issues: anything else is refused before any HMAC is computed
  if (!isRecord(parameters) || typeof signature !== 'string' || parameters.algorithm !== ALGORITHM || parameters.cost !== COST) return null;
  if (typeof parameters.expiresAt !== 'number' || !isRecord(parameters.data)) return null;
  return { challenge: value.challenge as unknown as SignedChallenge, solution: value.solution };
}

function refused(why: string): CaptchaOutcome {
  return { ok: false, reason: 'failed', detail: `The CAPTCHA answer (${ALTCHA_FIELD}) ${why}; complete the CAPTCHA again and submit again.` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
