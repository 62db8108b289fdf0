import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type * as WebAuthn from '@simplewebauthn/server';
import type { Config } from '../config/config.js';
import type { Database, Queryable } from '../db/database.js';
import type { PasskeyRow } from '../db/schema/session.js';
import { type RelyingParty, relyingPartyOf } from '../domain/relying-party.js';
import { ProblemError, validationError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import { type Ceremony, type CeremonyPurpose, newCeremony } from './passkey-ceremonies.js';
import { passkeyName } from './passkey-names.js';
import { type Passkey, refOf, toPasskey, transportsOf } from './passkey-rows.js';
import { refreshSecondFactor } from './two-factor.js';

// Loaded at the first passkey ceremony, not at start: the library and its dependencies take about
// 27 MB that an installation where nobody uses a passkey never needs (scripts/build.mjs keeps it outside the bundle).
let webAuthnLibrary: Promise<typeof WebAuthn> | null = null;
const webAuthn = () => (webAuthnLibrary ??= import('@simplewebauthn/server'));

export { PASSKEY_NAME_MAX } from './passkey-names.js';
export { type Passkey, refOf } from './passkey-rows.js';
export type { Ceremony, CeremonyPurpose } from './passkey-ceremonies.js';

/** Why an assertion was refused: each counted apart in /metrics. */
export type PasskeyRefusal = 'expired' | 'replayed' | 'unknown' | 'invalid' | 'cloned';
export type PasskeyCheck = { ok: true; userId: string; passkey: Passkey } | { ok: false; reason: PasskeyRefusal };

export const PASSKEYS_PER_ACCOUNT = 20;
const RP_NAME = 'Formgate';
// what the browser is told to wait for the person (the ceremony's cookie lives longer: passkey-ceremonies.ts)
const PROMPT_TIMEOUT_MS = 120_000;
// EdDSA, ES256, RS256: what every authenticator offers. NOTE: named, not the library's default, which
// asks the runtime about post-quantum keys and makes Node.js print an "experimental" warning.
const ALGORITHMS = [-8, -7, -257];

/**
 * Passkeys (WebAuthn, issue 43, item 2) with @simplewebauthn/server: made for the public URL's
 * host name, user verification required (a PIN, a fingerprint: a passkey alone signs in),
 * discoverable where the authenticator can (sign-in without typing an address). Each challenge is
 * answered once (passkey_challenges); an assertion whose signature counter does not move forward,
 * on an authenticator that counts, is refused as a clone. Adding or removing one refreshes
 * `users.second_factor_at` in the same transaction.
 */
export class PasskeyService {
  constructor(
    private readonly database: Database,
    /** Read at each ceremony: `formgate serve` settles the public URL once it listens. */
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly audit: AuditLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** The relying party, or why passkeys cannot work at this public URL (said on the pages). */
  relyingParty(): RelyingParty | { unavailable: string } {
    return relyingPartyOf(this.config.publicUrl);
  }

  /** Whether passkeys work at this public URL (the login page shows its button only then). */
  available(): boolean {
    return 'id' in this.relyingParty();
  }

  async list(userId: string): Promise<Passkey[]> {
    const rows = await this.rowsOf(userId);
    return rows.map(toPasskey);
  }

  /** One of the account's passkeys by its ref; not_found when the account has none such. */
  async get(userId: string, ref: string): Promise<Passkey> {
    return toPasskey(await this.rowOf(userId, ref));
  }

  /** The options of navigator.credentials.create() for a new passkey of the account, and its ceremony. */
  async registrationOptions(user: { id: string; email: string }): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; ceremony: Ceremony }> {
    const rp = this.requireRelyingParty();
    const existing = await this.rowsOf(user.id);
    if (existing.length >= PASSKEYS_PER_ACCOUNT) throw tooMany();
    const ceremony = newCeremony('register', user.id, this.now());
    const { generateRegistrationOptions } = await webAuthn();
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: user.email,
      userDisplayName: user.email,
      userID: new TextEncoder().encode(user.id),
      // as bytes: a string would be taken as text and encoded again
      challenge: Buffer.from(ceremony.challenge, 'base64url'),
      timeout: PROMPT_TIMEOUT_MS,
      attestationType: 'none',
      supportedAlgorithmIDs: ALGORITHMS,
      excludeCredentials: existing.map((row) => ({ id: row.id, transports: transportsOf(row) })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    return { options, ceremony };
  }

  /** Verifies the browser's new credential and keeps it under `name`; the form's problems otherwise (nothing kept). */
  async register(userId: string, ceremony: Ceremony | null, response: unknown, name: string): Promise<Passkey> {
    const rp = this.requireRelyingParty();
    const named = passkeyName(name);
    if (!isCeremonyFor(ceremony, 'register', userId, this.now())) throw answerProblem('The passkey took too long to make, or the page is old: try again.');
    if (!(await this.spend(ceremony))) throw answerProblem('This passkey was already added, or the page is old: try again.');
    const { verifyRegistrationResponse } = await webAuthn();
    let verified: Awaited<ReturnType<typeof WebAuthn.verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: ceremony.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch {
      throw answerProblem('The browser’s answer could not be verified: nothing was added. Try again.');
    }
    if (!verified.verified) throw answerProblem('The browser’s answer could not be verified: nothing was added. Try again.');
    const { credential, credentialBackedUp } = verified.registrationInfo;
    const now = this.now();
    const row: PasskeyRow = {
      id: credential.id,
      userId,
      name: named,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports?.length ? JSON.stringify(credential.transports) : null,
      backedUp: credentialBackedUp ? 1 : 0,
      lastUsedAt: null,
      createdAt: now,
    };
    await this.database.transaction(async (trx) => {
      const count = await countOf(trx, userId);
      if (count >= PASSKEYS_PER_ACCOUNT) throw tooMany();
      if (!named) row.name = `Passkey ${count + 1}`;
      const taken = await trx.selectFrom('passkeys').select('id').where('id', '=', row.id).executeTakeFirst();
      if (taken) throw answerProblem('This passkey is already added to an account.');
      await trx.insertInto('passkeys').values(row).execute();
      await refreshSecondFactor(trx, userId, now);
      await this.audit.record({ action: 'passkey.added', target: targetOf(row) }, trx);
    });
    return toPasskey(row);
  }

  /** The options of navigator.credentials.get(): any discoverable passkey (sign-in), or one of the account's. */
  async authenticationOptions(
    purpose: Exclude<CeremonyPurpose, 'register'>,
    userId: string | null,
  ): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; ceremony: Ceremony }> {
    const rp = this.requireRelyingParty();
    const ceremony = newCeremony(purpose, userId, this.now());
    const rows = userId === null ? [] : await this.rowsOf(userId);
    const { generateAuthenticationOptions } = await webAuthn();
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      challenge: Buffer.from(ceremony.challenge, 'base64url'),
      timeout: PROMPT_TIMEOUT_MS,
      userVerification: 'required',
      allowCredentials: rows.map((row) => ({ id: row.id, transports: transportsOf(row) })),
    });
    return { options, ceremony };
  }

  /**
   * Checks an assertion against its ceremony: answered once, by a passkey of the ceremony's account
   * (any account's for a sign-in), signed for this origin with the person verified, its counter
   * forward. Notes the passkey's use. Never throws for a bad answer: says why it was refused.
   */
  async authenticate(ceremony: Ceremony | null, purpose: Exclude<CeremonyPurpose, 'register'>, response: unknown): Promise<PasskeyCheck> {
    const rp = this.relyingParty();
    if (!('id' in rp) || !ceremony || ceremony.purpose !== purpose || ceremony.expiresAt <= this.now()) return { ok: false, reason: 'expired' };
    if (!(await this.spend(ceremony))) return { ok: false, reason: 'replayed' };
    const answer = response as Partial<AuthenticationResponseJSON> | null;
    const id = typeof answer?.id === 'string' ? answer.id : '';
    let query = this.database.db.selectFrom('passkeys').selectAll().where('id', '=', id);
    if (ceremony.userId !== null) query = query.where('userId', '=', ceremony.userId);
    const row = id ? await query.executeTakeFirst() : undefined;
    const handle = answer?.response?.userHandle;
    if (!row || (handle && Buffer.from(handle, 'base64url').toString() !== row.userId)) return { ok: false, reason: 'unknown' };
    let newCounter: number;
    let backedUp: boolean;
    try {
      const { verifyAuthenticationResponse } = await webAuthn();
      const verified = await verifyAuthenticationResponse({
        response: answer as AuthenticationResponseJSON,
        expectedChallenge: ceremony.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        // NOTE: counter 0 turns the library's own check off; ours below tells a clone from a bad signature
        credential: { id: row.id, publicKey: Buffer.from(row.publicKey, 'base64url'), counter: 0, transports: transportsOf(row) },
        requireUserVerification: true,
      });
      if (!verified.verified) return { ok: false, reason: 'invalid' };
      newCounter = verified.authenticationInfo.newCounter;
      backedUp = verified.authenticationInfo.credentialBackedUp;
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    // an authenticator that counts must count forward: the same or a lower count is a copy of it
    if ((newCounter > 0 || row.counter > 0) && newCounter <= row.counter) return { ok: false, reason: 'cloned' };
    const now = this.now();
    // one statement: of two answers racing with the same count, one moves it
    const moved = await this.database.db
      .updateTable('passkeys')
      // a passkey may become synced after it was added (its backup flag says so now)
      .set({ counter: newCounter, lastUsedAt: now, backedUp: backedUp ? 1 : 0 })
      .where('id', '=', row.id)
      .where('counter', '=', row.counter)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return { ok: false, reason: 'cloned' };
    return { ok: true, userId: row.userId, passkey: toPasskey({ ...row, counter: newCounter, lastUsedAt: now, backedUp: backedUp ? 1 : 0 }) };
  }

  async rename(userId: string, ref: string, name: string): Promise<Passkey> {
    const row = await this.rowOf(userId, ref);
    const named = passkeyName(name);
    if (!named) throw validationError(['name: Give the passkey a name, such as the device that holds it.']);
    await this.database.transaction(async (trx) => {
      await trx.updateTable('passkeys').set({ name: named }).where('id', '=', row.id).where('userId', '=', userId).execute();
      await this.audit.record({ action: 'passkey.renamed', target: targetOf({ ...row, name: named }), details: { from: row.name } }, trx);
    });
    return toPasskey({ ...row, name: named });
  }

  /** Removes one of the account's passkeys; answers whether the account still has a second factor. */
  async remove(userId: string, ref: string): Promise<{ removed: Passkey; secondFactorLeft: boolean }> {
    const row = await this.rowOf(userId, ref);
    return this.database.transaction(async (trx) => {
      await trx.deleteFrom('passkeys').where('id', '=', row.id).where('userId', '=', userId).execute();
      await refreshSecondFactor(trx, userId, this.now());
      await this.audit.record({ action: 'passkey.removed', target: targetOf(row) }, trx);
      const user = await trx.selectFrom('users').select('secondFactorAt').where('id', '=', userId).executeTakeFirst();
      return { removed: toPasskey(row), secondFactorLeft: user?.secondFactorAt != null };
    });
  }

  /** Takes the ceremony's challenge once (any instance); forgets those past their expiry. */
  private async spend(ceremony: Ceremony): Promise<boolean> {
    const db = this.database.db;
    await db.deleteFrom('passkeyChallenges').where('expiresAt', '<', this.now()).execute();
    const result = await db
      .insertInto('passkeyChallenges')
      .values({ challenge: ceremony.challenge, expiresAt: ceremony.expiresAt })
      .onConflict((oc) => oc.column('challenge').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  private requireRelyingParty(): RelyingParty {
    const rp = this.relyingParty();
    if ('unavailable' in rp) throw new ProblemError('conflict', rp.unavailable);
    return rp;
  }

  private rowsOf(userId: string): Promise<PasskeyRow[]> {
    return this.database.db.selectFrom('passkeys').selectAll().where('userId', '=', userId).orderBy('createdAt').orderBy('id').execute();
  }

  private async rowOf(userId: string, ref: string): Promise<PasskeyRow> {
    const row = (await this.rowsOf(userId)).find((r) => refOf(r.id) === ref);
    if (!row) throw new ProblemError('not_found', 'The account has no such passkey.');
    return row;
  }
}

async function countOf(db: Queryable, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function isCeremonyFor(ceremony: Ceremony | null, purpose: CeremonyPurpose, userId: string, now: number): ceremony is Ceremony {
  return ceremony !== null && ceremony.purpose === purpose && ceremony.userId === userId && ceremony.expiresAt > now;
}

function targetOf(row: Pick<PasskeyRow, 'id' | 'name'>) {
  return { kind: 'passkey', id: refOf(row.id), name: row.name };
}

function tooMany(): ProblemError {
  return new ProblemError('conflict', `An account holds ${PASSKEYS_PER_ACCOUNT} passkeys at most: remove one you no longer use first.`);
}

/** A problem of the browser's answer (a hidden field): said as the form's message. */
function answerProblem(message: string): ProblemError {
  return validationError([`response: ${message}`]);
}
