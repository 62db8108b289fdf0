import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import * as OTPAuth from 'otpauth';
import type { Database, Queryable } from '../db/database.js';
import { validationError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import type { SealedValues } from './sealed-values.js';

/** How a second factor was proved at sign-in (or when confirming a change). */
export type SecondFactorKind = 'app' | 'recovery' | 'passkey' | 'remembered';

/** What an account has as second factors, for the sign-in step and the account page. */
export interface SecondFactors {
  app: boolean;
  passkeys: number;
  recoveryCodesLeft: number;
}

/** An app being set up: shown as a QR code and as text, confirmed by a code typed back. */
export interface AppSetup {
  /** The secret, sealed for this account: the setup form carries it back, never in the clear. */
  sealedSecret: string;
  /** The secret in base32, grouped by four for typing into an app by hand. */
  secretText: string;
  /** The `otpauth://` URI the QR code holds. */
  uri: string;
  /** The QR code as an SVG document. */
  qrSvg: string;
}

const RECOVERY_CODES = 10;
// RFC 6238's defaults, which every authenticator app reads: SHA-1, 6 digits, 30 s.
const PERIOD_SECONDS = 30;
// A code of the step before or after the current one is accepted too: a phone's clock a little off.
const WINDOW_STEPS = 1;
const CODE = /^\d{6}$/;
const RECOVERY_CODE = /^[a-z2-7]{10}$/;
const ISSUER = 'Formgate';
const SETUP_CONTEXT = 'totp-setup:';
const SECRET_CONTEXT = 'totp:';

/**
 * Two-factor sign-in (issue 43, item 1): an authenticator app's codes (TOTP, RFC 6238) and ten
 * single-use recovery codes. A code is accepted once: the step of the last code accepted is kept,
 * and a code of that step or an earlier one is refused (replay). Passkeys (services/passkeys.ts) are
 * the other second factor; `users.second_factor_at` says whether an account has any.
 */
export class TwoFactorService {
  constructor(
    private readonly database: Database,
    private readonly sealed: SealedValues,
    private readonly audit: AuditLog,
    private readonly now: () => number = Date.now,
  ) {}

  async factorsOf(userId: string, db: Queryable = this.database.db): Promise<SecondFactors> {
    const row = await db
      .selectFrom('users')
      .select('totpSecret')
      .select((eb) => [
        eb
          .selectFrom('passkeys')
          .select((p) => p.fn.countAll<number | string>().as('n'))
          .whereRef('passkeys.userId', '=', 'users.id')
          .as('passkeys'),
        eb
          .selectFrom('recoveryCodes')
          .select((r) => r.fn.countAll<number | string>().as('n'))
          .whereRef('recoveryCodes.userId', '=', 'users.id')
          .where('recoveryCodes.usedAt', 'is', null)
          .as('recoveryCodesLeft'),
      ])
      .where('id', '=', userId)
      .executeTakeFirst();
    return { app: Boolean(row?.totpSecret), passkeys: Number(row?.passkeys ?? 0), recoveryCodesLeft: Number(row?.recoveryCodesLeft ?? 0) };
  }

  /** A new secret for the account's app, not yet saved: saved by `enableApp` with a code it made. */
  async startAppSetup(userId: string, email: string): Promise<AppSetup> {
    const secret = new OTPAuth.Secret({ size: 20 });
    return this.setupOf(userId, email, secret.base32);
  }

  /** The same setup again (the page shown anew after a wrong code), from its sealed secret; null when it is not this account's. */
  async resumeAppSetup(userId: string, email: string, sealedSecret: string): Promise<AppSetup | null> {
    const base32 = this.sealed.open(sealedSecret, SETUP_CONTEXT + userId);
    return base32 === null ? null : this.setupOf(userId, email, base32);
  }

  /**
   * Saves the app once a code it made is right, and makes ten recovery codes (returned once, kept
   * as hashes). Replaces an app set up before, and its recovery codes.
   */
  async enableApp(userId: string, sealedSecret: string, code: string): Promise<string[]> {
    const base32 = this.sealed.open(sealedSecret, SETUP_CONTEXT + userId);
    if (base32 === null) throw validationError(['code: This set-up has expired or is not yours; start again.']);
    const step = matchingStep(base32, code, this.now());
    if (step === null) throw validationError(['code: That code is not right. Type the 6 digits your app shows now.']);
    const codes = newRecoveryCodes();
    await this.database.transaction(async (trx) => {
      const now = this.now();
      await trx
        .updateTable('users')
        .set({ totpSecret: this.sealed.seal(base32, SECRET_CONTEXT + userId), totpLastStep: step })
        .where('id', '=', userId)
        .execute();
      await this.replaceRecoveryCodes(trx, userId, codes, now);
      await refreshSecondFactor(trx, userId, now);
      await this.audit.record({ action: 'two_factor.app_enabled', actorUserId: userId }, trx);
    });
    return codes;
  }

  /**
   * Checks a code typed at sign-in or to confirm a change: the app's current code (once only) or an
   * unused recovery code (used up). Returns which it was, or null when it is neither.
   */
  async verify(userId: string, typed: string): Promise<SecondFactorKind | null> {
    const code = typed.replace(/[\s-]/g, '').toLowerCase();
    let kind: SecondFactorKind | null = null;
    if (CODE.test(code) && (await this.verifyAppCode(userId, code))) kind = 'app';
    else if (RECOVERY_CODE.test(code) && (await this.useRecoveryCode(userId, code))) kind = 'recovery';
    // a refusal changes nothing, the audit log included: the log line and formgate_second_factor_refusals_total say it
    if (kind === 'recovery') await this.audit.record({ action: 'two_factor.recovery_code_used', actorUserId: userId });
    return kind;
  }

  /** Turns the app off (its recovery codes go with it, and remembered browsers when no passkey remains). */
  async disableApp(userId: string): Promise<void> {
    await this.database.transaction(async (trx) => {
      const now = this.now();
      await trx.updateTable('users').set({ totpSecret: null, totpLastStep: null }).where('id', '=', userId).execute();
      await trx.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
      await refreshSecondFactor(trx, userId, now);
      await this.audit.record({ action: 'two_factor.app_disabled', actorUserId: userId }, trx);
    });
  }

  /**
   * Removes every second factor of the account (the operator's `formgate users reset-two-factor`,
   * for a person who lost them all): the app, its recovery codes, passkeys, remembered browsers.
   */
  async reset(userId: string): Promise<{ app: boolean; passkeys: number; rememberedBrowsers: number }> {
    return this.database.transaction(async (trx) => {
      const before = await this.factorsOf(userId, trx);
      await trx.updateTable('users').set({ totpSecret: null, totpLastStep: null }).where('id', '=', userId).execute();
      await trx.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
      const passkeys = await trx.deleteFrom('passkeys').where('userId', '=', userId).executeTakeFirst();
      const browsers = await trx.deleteFrom('rememberedBrowsers').where('userId', '=', userId).executeTakeFirst();
      await refreshSecondFactor(trx, userId, this.now());
      const removed = { app: before.app, passkeys: Number(passkeys.numDeletedRows), rememberedBrowsers: Number(browsers.numDeletedRows) };
      await this.audit.record({ action: 'two_factor.reset', target: { kind: 'account', id: userId }, details: removed }, trx);
      return removed;
    });
  }

  /** Ten new recovery codes in place of the old ones (returned once). */
  async newRecoveryCodes(userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.database.transaction(async (trx) => {
      await this.replaceRecoveryCodes(trx, userId, codes, this.now());
      await this.audit.record({ action: 'two_factor.recovery_codes_renewed', actorUserId: userId }, trx);
    });
    return codes;
  }

  private async verifyAppCode(userId: string, code: string): Promise<boolean> {
    const row = await this.database.db.selectFrom('users').select(['totpSecret']).where('id', '=', userId).executeTakeFirst();
    const base32 = row?.totpSecret ? this.sealed.open(row.totpSecret, SECRET_CONTEXT + userId) : null;
    if (base32 === null) return false;
    const step = matchingStep(base32, code, this.now());
    if (step === null) return false;
    // one statement: of two requests with the same code, only one moves the step
    const result = await this.database.db
      .updateTable('users')
      .set({ totpLastStep: step })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  private async useRecoveryCode(userId: string, code: string): Promise<boolean> {
    const result = await this.database.db
      .updateTable('recoveryCodes')
      .set({ usedAt: this.now() })
      .where('userId', '=', userId)
      .where('codeHash', '=', hashCode(code))
      .where('usedAt', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  private async replaceRecoveryCodes(db: Queryable, userId: string, codes: string[], now: number): Promise<void> {
    await db.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
    await db
      .insertInto('recoveryCodes')
      .values(codes.map((code) => ({ userId, codeHash: hashCode(normalise(code)), usedAt: null, createdAt: now })))
      .execute();
  }

  private async setupOf(userId: string, email: string, base32: string): Promise<AppSetup> {
    const totp = totpOf(base32, email);
    const uri = totp.toString();
    return {
      sealedSecret: this.sealed.seal(base32, SETUP_CONTEXT + userId),
      secretText: base32.match(/.{1,4}/g)?.join(' ') ?? base32,
      uri,
      // loaded at the first set-up, not at start (9 MB nobody needs until then; outside the bundle, scripts/build.mjs)
      qrSvg: await (await import('qrcode')).default.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
    };
  }
}

/**
 * Sets `users.second_factor_at` from what the account has now: kept when it has an app or a
 * passkey (set now if it had none), null when it has neither. Every change to either calls it, in
 * the change's transaction.
 */
export async function refreshSecondFactor(db: Queryable, userId: string, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({
      secondFactorAt: eb
        .case()
        .when(
          eb.or([eb('totpSecret', 'is not', null), eb.exists(eb.selectFrom('passkeys').select('passkeys.id').whereRef('passkeys.userId', '=', 'users.id'))]),
        )
        .then(eb.fn.coalesce('secondFactorAt', sql<number>`${now}`))
        .else(sql<null>`NULL`)
        .end(),
    }))
    .where('id', '=', userId)
    .execute();
}

function totpOf(base32: string, email: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: OTPAuth.Secret.fromBase32(base32) });
}

/** The time step of the code, when it is the app's code of a step within the window; null otherwise. */
function matchingStep(base32: string, typed: string, now: number): number | null {
  const code = typed.replace(/\s/g, '');
  if (!CODE.test(code)) return null;
  const delta = totpOf(base32, '').validate({ token: code, timestamp: now, window: WINDOW_STEPS });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

function newRecoveryCodes(): string[] {
  // base32 (a–z and 2–7: no 0 or 1 to take for o or l), 10 characters, 50 bits each
  return Array.from({ length: RECOVERY_CODES }, () => {
    const text = new OTPAuth.Secret({ buffer: randomBytes(10).buffer }).base32.slice(0, 10).toLowerCase();
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

function normalise(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
