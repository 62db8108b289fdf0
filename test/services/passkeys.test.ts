import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { relyingPartyOf } from '../../src/domain/relying-party.js';
import { ProblemError } from '../../src/errors.js';
import { type Ceremony, PASSKEYS_PER_ACCOUNT, PasskeyService } from '../../src/services/passkeys.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';

const RP = 'forms.example.com';
const ORIGIN = `https://${RP}`;

/** The problem's messages by field, as the page shows them. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ProblemError, String(error));
  const errors = (error.extra.errors as string[] | undefined) ?? [];
  return `${error.code}: ${errors.join(' ') || error.detail}`;
}

describe(`passkeys: the service's checks (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let passkeys: PasskeyService;
  let alice: { id: string; email: string };
  let bob: { id: string; email: string };

  before(async () => {
    app = await startApp();
    passkeys = new PasskeyService(app.ctx.database, { publicUrl: ORIGIN }, app.ctx.audit);
    alice = (await app.ctx.users.createUser('alice@example.com', 'alice password')).user;
    bob = (await app.ctx.users.createUser('bob@example.com', 'bob password')).user;
  });
  after(async () => {
    await app?.close();
  });

  const secondFactorAt = async (userId: string) =>
    (await app.ctx.database.db.selectFrom('users').select('secondFactorAt').where('id', '=', userId).executeTakeFirstOrThrow()).secondFactorAt;

  /** A new authenticator registered to the account under `name`. */
  async function added(user: { id: string; email: string }, name: string): Promise<SoftAuthenticator> {
    const authenticator = new SoftAuthenticator(RP, ORIGIN);
    const { options, ceremony } = await passkeys.registrationOptions(user);
    await passkeys.register(user.id, ceremony, authenticator.register(options), name);
    return authenticator;
  }

  it('makes registration options for the public URL’s host, user verification required, discoverable preferred', async () => {
    const { options, ceremony } = await passkeys.registrationOptions(alice);
    assert.equal(options.rp.id, RP);
    assert.equal(options.authenticatorSelection?.userVerification, 'required');
    assert.equal(options.authenticatorSelection?.residentKey, 'preferred');
    assert.equal(options.attestation, 'none');
    assert.equal(options.challenge, ceremony.challenge);
    assert.equal(Buffer.from(options.user.id, 'base64url').toString(), alice.id);
    assert.equal(ceremony.purpose, 'register');
    assert.equal(ceremony.userId, alice.id);
  });

  it('adds a passkey, sets second_factor_at and records it in the audit log; the same answer again adds nothing', async () => {
    assert.equal(await secondFactorAt(alice.id), null);
    const authenticator = new SoftAuthenticator(RP, ORIGIN);
    const { options, ceremony } = await passkeys.registrationOptions(alice);
    const answer = authenticator.register(options);
    const passkey = await passkeys.register(alice.id, ceremony, answer, '  Work   laptop ');
    assert.equal(passkey.name, 'Work laptop');
    assert.notEqual(await secondFactorAt(alice.id), null);
    assert.deepEqual(
      (await passkeys.list(alice.id)).map((p) => p.name),
      ['Work laptop'],
    );
    const events = await app.ctx.database.db.selectFrom('auditEvents').select(['action', 'targetName']).where('action', 'like', 'passkey.%').execute();
    assert.deepEqual(events, [{ action: 'passkey.added', targetName: 'Work laptop' }]);
    assert.match(await refusal(passkeys.register(alice.id, ceremony, answer, 'Again')), /already added, or the page is old/);
    assert.equal((await passkeys.list(alice.id)).length, 1);
  });

  it('refuses a new passkey made for another origin, without user verification, past its time or for another account', async () => {
    const authenticator = new SoftAuthenticator(RP, ORIGIN);
    const fresh = () => passkeys.registrationOptions(bob);
    let { options, ceremony } = await fresh();
    assert.match(
      await refusal(passkeys.register(bob.id, ceremony, authenticator.register(options, { origin: 'https://evil.example' }), 'x')),
      /could not be verified/,
    );
    ({ options, ceremony } = await fresh());
    assert.match(await refusal(passkeys.register(bob.id, ceremony, authenticator.register(options, { verified: false }), 'x')), /could not be verified/);
    ({ options, ceremony } = await fresh());
    const late: Ceremony = { ...ceremony, expiresAt: Date.now() - 1 };
    assert.match(await refusal(passkeys.register(bob.id, late, authenticator.register(options), 'x')), /took too long/);
    ({ options, ceremony } = await fresh());
    assert.match(await refusal(passkeys.register(alice.id, ceremony, authenticator.register(options), 'x')), /took too long/);
    assert.match(await refusal(passkeys.register(bob.id, null, authenticator.register(options), 'x')), /took too long/);
    ({ options, ceremony } = await fresh());
    assert.match(await refusal(passkeys.register(bob.id, ceremony, { id: 'nonsense' }, 'x')), /could not be verified/);
    assert.match(await refusal(passkeys.register(bob.id, ceremony, authenticator.register(options), 'x'.repeat(61))), /at most 60 characters/);
    assert.match(await refusal(passkeys.register(bob.id, ceremony, authenticator.register(options), 'a\u0000b')), /no control characters/);
    assert.deepEqual(await passkeys.list(bob.id), []);
    assert.equal(await secondFactorAt(bob.id), null);
  });

  it('signs in with a discoverable passkey once per challenge: a replayed assertion is refused', async () => {
    const authenticator = await added(bob, 'Phone');
    authenticator.counter = 1;
    const { options, ceremony } = await passkeys.authenticationOptions('sign-in', null);
    assert.deepEqual(options.allowCredentials ?? [], [], 'usernameless: no credential named');
    assert.equal(options.userVerification, 'required');
    const assertion = authenticator.assert(options, { userHandle: bob.id });
    const check = await passkeys.authenticate(ceremony, 'sign-in', assertion);
    assert.ok(check.ok, JSON.stringify(check));
    assert.equal(check.userId, bob.id);
    assert.ok(check.passkey.lastUsedAt !== null);
    assert.deepEqual(await passkeys.authenticate(ceremony, 'sign-in', assertion), { ok: false, reason: 'replayed' });
  });

  it('refuses an assertion whose counter does not move forward (a cloned key), and accepts one that does not count', async () => {
    const counting = await added(alice, 'Security key');
    const sign = async (authenticator: SoftAuthenticator) => {
      const { options, ceremony } = await passkeys.authenticationOptions('sign-in', null);
      return passkeys.authenticate(ceremony, 'sign-in', authenticator.assert(options));
    };
    counting.counter = 5;
    assert.equal((await sign(counting)).ok, true);
    assert.deepEqual(await sign(counting), { ok: false, reason: 'cloned' }, 'the same count again');
    counting.counter = 3;
    assert.deepEqual(await sign(counting), { ok: false, reason: 'cloned' }, 'a lower count');
    counting.counter = 0;
    assert.deepEqual(await sign(counting), { ok: false, reason: 'cloned' }, 'a count of 0 after counting');
    counting.counter = 6;
    assert.equal((await sign(counting)).ok, true, 'forward again');

    const synced = await added(alice, 'Synced passkey');
    assert.equal((await sign(synced)).ok, true, 'an authenticator that never counts (0)…');
    assert.equal((await sign(synced)).ok, true, '…is accepted every time');
  });

  it('refuses an assertion for the wrong ceremony, account, origin, or without user verification', async () => {
    const authenticator = await added(bob, 'Tablet');
    const ask = (purpose: 'sign-in' | 'second-factor' | 'confirm', userId: string | null) => passkeys.authenticationOptions(purpose, userId);
    let { options, ceremony } = await ask('second-factor', alice.id);
    assert.ok(!(options.allowCredentials ?? []).some((c) => c.id === authenticator.credentialId), 'only alice’s passkeys are named');
    assert.deepEqual(await passkeys.authenticate(ceremony, 'second-factor', authenticator.assert(options)), { ok: false, reason: 'unknown' });
    ({ options, ceremony } = await ask('confirm', bob.id));
    assert.deepEqual(await passkeys.authenticate(ceremony, 'second-factor', authenticator.assert(options)), { ok: false, reason: 'expired' });
    ({ options, ceremony } = await ask('sign-in', null));
    assert.deepEqual(await passkeys.authenticate({ ...ceremony, expiresAt: Date.now() - 1 }, 'sign-in', authenticator.assert(options)), {
      ok: false,
      reason: 'expired',
    });
    ({ options, ceremony } = await ask('sign-in', null));
    assert.deepEqual(await passkeys.authenticate(ceremony, 'sign-in', authenticator.assert(options, { userHandle: alice.id })), {
      ok: false,
      reason: 'unknown',
    });
    ({ options, ceremony } = await ask('sign-in', null));
    assert.deepEqual(await passkeys.authenticate(ceremony, 'sign-in', authenticator.assert(options, { origin: 'https://evil.example' })), {
      ok: false,
      reason: 'invalid',
    });
    ({ options, ceremony } = await ask('sign-in', null));
    assert.deepEqual(await passkeys.authenticate(ceremony, 'sign-in', authenticator.assert(options, { verified: false })), { ok: false, reason: 'invalid' });
    ({ options, ceremony } = await ask('sign-in', null));
    assert.deepEqual(await passkeys.authenticate(ceremony, 'sign-in', 'not an answer'), { ok: false, reason: 'unknown' });
    ({ options, ceremony } = await ask('confirm', bob.id));
    const confirmed = await passkeys.authenticate(ceremony, 'confirm', authenticator.assert(options));
    assert.equal(confirmed.ok, true);
  });

  it('renames and removes only the account’s own passkeys; second_factor_at follows the last removal', async () => {
    const carol = (await app.ctx.users.createUser('carol@example.com', 'carol password')).user;
    await added(carol, 'Old phone');
    const [mine] = await passkeys.list(carol.id);
    const [alices] = await passkeys.list(alice.id);
    assert.match(await refusal(passkeys.rename(carol.id, alices!.ref, 'Taken')), /^not_found/);
    assert.match(await refusal(passkeys.remove(carol.id, alices!.ref)), /^not_found/);
    assert.match(await refusal(passkeys.rename(carol.id, mine!.ref, '   ')), /Give the passkey a name/);
    assert.equal((await passkeys.rename(carol.id, mine!.ref, 'New phone')).name, 'New phone');
    assert.notEqual(await secondFactorAt(carol.id), null);
    const { removed, secondFactorLeft } = await passkeys.remove(carol.id, mine!.ref);
    assert.equal(removed.name, 'New phone');
    assert.equal(secondFactorLeft, false);
    assert.equal(await secondFactorAt(carol.id), null);
    assert.equal((await passkeys.list(alice.id))[0]?.name, alices!.name, 'alice’s is untouched');
  });

  it(`holds ${PASSKEYS_PER_ACCOUNT} passkeys per account at most`, async () => {
    const dave = (await app.ctx.users.createUser('dave@example.com', 'dave password')).user;
    for (let i = 0; i < PASSKEYS_PER_ACCOUNT; i++) await added(dave, '');
    const names = (await passkeys.list(dave.id)).map((p) => p.name);
    assert.equal(names[0], 'Passkey 1', 'a passkey given no name is numbered');
    assert.match(await refusal(passkeys.registrationOptions(dave)), /20 passkeys at most/);
  });
});

describe('passkeys: the relying party from the public URL', () => {
  it('is the host name on https or localhost; an IP address or plain http elsewhere cannot have passkeys', () => {
    assert.deepEqual(relyingPartyOf('https://forms.example.com'), { id: 'forms.example.com', origin: 'https://forms.example.com' });
    assert.deepEqual(relyingPartyOf('https://forms.example.com:8443/'), { id: 'forms.example.com', origin: 'https://forms.example.com:8443' });
    assert.deepEqual(relyingPartyOf('http://localhost:3000'), { id: 'localhost', origin: 'http://localhost:3000' });
    assert.match(String(Object.values(relyingPartyOf('http://127.0.0.1:3000'))), /IP address/);
    assert.match(String(Object.values(relyingPartyOf('https://[::1]:3000'))), /IP address/);
    assert.match(String(Object.values(relyingPartyOf('http://forms.example.com'))), /HTTPS/);
  });
});
