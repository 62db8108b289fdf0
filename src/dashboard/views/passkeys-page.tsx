import type { FieldErrors } from '../field-errors.js';
import { type Passkey, PASSKEY_NAME_MAX, PASSKEYS_PER_ACCOUNT } from '../../services/passkeys.js';
import { Badge, Button, ButtonLink, ConfirmForm, CsrfInput, EmptyState, Field, FormError, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { type Frame, Layout } from './layout.js';
import { AddPasskeyForm, PASSKEY_SCRIPTS, PasskeyConfirmForm } from './passkey-forms.js';
import { CurrentPasswordField, SecondFactorCodeField } from './token-form.js';

/** How the person can confirm it is them now, and whether they did in the last 15 minutes. */
export interface Confirmation {
  recent: boolean;
  /** The account has a second factor: it confirms with that (a passkey, the app's code), not the password. */
  secondFactor: boolean;
  app: boolean;
  passkeys: number;
  hasPassword: boolean;
}

interface PasskeysPageProps {
  frame: Frame;
  passkeys: Passkey[];
  confirmation: Confirmation;
  /** Why this installation cannot make passkeys (its public URL), or null. */
  unavailable: string | null;
  errors?: FieldErrors;
}

const COLUMNS: Column<Passkey>[] = [
  { label: 'Name', cell: (p) => <strong>{p.name}</strong> },
  { label: 'Added', cell: (p) => <Time ms={p.createdAt} /> },
  { label: 'Last used', cell: (p) => <Time ms={p.lastUsedAt} /> },
  { label: 'Kind', cell: (p) => (p.backedUp ? <Badge>Synced</Badge> : <Badge tone="neutral">This device only</Badge>) },
  {
    label: 'Actions',
    hideLabel: true,
    cell: (p) => (
      <ButtonLink href={`/account/passkeys/${p.ref}`} variant="secondary" small>
        Rename or remove<span class="visually-hidden"> “{p.name}”</span>
      </ButtonLink>
    ),
  },
];

/** The account's passkeys: each one's name and use, and a new one (issue 43, item 2). */
export function PasskeysPage({ frame, passkeys, confirmation, unavailable, errors }: PasskeysPageProps) {
  const full = passkeys.length >= PASSKEYS_PER_ACCOUNT;
  return (
    <Layout title="Passkeys" frame={frame} scripts={PASSKEY_SCRIPTS}>
      <p class="lead">
        A passkey signs you in with your device’s fingerprint, face or screen lock: no password to type, nothing a fake site can catch. After your password, it
        is also your second factor.
      </p>
      {unavailable && <p class="notice">{unavailable}</p>}
      <Panel title="Your passkeys">
        {passkeys.length === 0 ? (
          <EmptyState>
            <p>No passkeys yet. Add one below from this device, or from a phone or security key the browser offers.</p>
          </EmptyState>
        ) : (
          <DataTable label="Your passkeys" class="passkeys" columns={COLUMNS} rows={passkeys} rowKey={(p) => p.ref} />
        )}
      </Panel>
      <Panel title="Add a passkey" id="add">
        <FormError errors={errors} />
        {full ? (
          <p>You have {PASSKEYS_PER_ACCOUNT} passkeys, the most an account holds: remove one you no longer use to add another.</p>
        ) : unavailable ? (
          <p>Passkeys cannot be added until the installation’s address allows them.</p>
        ) : confirmation.recent ? (
          <AddPasskeyForm csrf={frame.csrf} errors={errors} />
        ) : (
          <ConfirmItIsYou csrf={frame.csrf} confirmation={confirmation} next="/account/passkeys#add" what="add a passkey" errors={errors} />
        )}
      </Panel>
    </Layout>
  );
}

interface PasskeyPageProps {
  frame: Frame;
  passkey: Passkey;
  confirmation: Confirmation;
  /** Who requires a second factor of the account, when this passkey is its last one; null otherwise. */
  lastRequiredBy: string | null;
  errors?: FieldErrors;
}

/** One passkey: rename it, or remove it (after confirming it is you). */
export function PasskeyPage({ frame, passkey, confirmation, lastRequiredBy, errors }: PasskeyPageProps) {
  const here = `/account/passkeys/${passkey.ref}`;
  return (
    <Layout title={`Passkey “${passkey.name}”`} frame={frame} scripts={PASSKEY_SCRIPTS}>
      <p class="muted">
        Added <Time ms={passkey.createdAt} />; last used <Time ms={passkey.lastUsedAt} />.
      </p>
      <FormError errors={errors} />
      <Panel title="Rename">
        <form method="post" action={`${here}/rename`} noValidate>
          <CsrfInput token={frame.csrf} />
          <Field label="Name" name="name" value={passkey.name} maxLength={PASSKEY_NAME_MAX} required errors={errors} />
          <Button type="submit" variant="secondary">
            Rename passkey
          </Button>
        </form>
      </Panel>
      <Panel title="Remove">
        <p>Once removed, it signs nobody in here. The device or password manager still holds it: remove it there too, in its passkey settings.</p>
        {lastRequiredBy ? (
          <p class="notice">{lastRequiredBy} requires a second factor, and this is your last one: add another passkey or an authenticator app first.</p>
        ) : confirmation.recent ? (
          <ConfirmForm csrf={frame.csrf} action={`${here}/remove`} button="Remove passkey" cancel="/account/passkeys" />
        ) : (
          <ConfirmItIsYou csrf={frame.csrf} confirmation={confirmation} next={here} what="remove it" errors={errors} />
        )}
      </Panel>
      <p>
        <a href="/account/passkeys">Back to passkeys</a>
      </p>
    </Layout>
  );
}

interface ConfirmProps {
  csrf: string;
  confirmation: Confirmation;
  next: string;
  /** What the confirmation is for, in words: "add a passkey". */
  what: string;
  errors?: FieldErrors;
}

/** "Confirm it is you": the second factor when the account has one, the password otherwise; good for 15 minutes. */
function ConfirmItIsYou({ csrf, confirmation, next, what, errors }: ConfirmProps) {
  const { secondFactor, app, passkeys, hasPassword } = confirmation;
  return (
    <div class="confirm-it-is-you">
      <p>
        To {what}, first confirm it is you{secondFactor ? ' with your second factor' : ' with your password'}. It holds for 15 minutes.
      </p>
      {secondFactor && passkeys > 0 && <PasskeyConfirmForm csrf={csrf} next={next} />}
      {secondFactor && app && (
        <form method="post" action="/account/passkeys/confirm/code" noValidate>
          <CsrfInput token={csrf} />
          <input type="hidden" name="next" value={next} />
          <SecondFactorCodeField errors={errors} />
          <Button type="submit" variant="secondary">
            Confirm with the code
          </Button>
        </form>
      )}
      {!secondFactor && hasPassword && (
        <form method="post" action="/account/passkeys/confirm/password" noValidate>
          <CsrfInput token={csrf} />
          <input type="hidden" name="next" value={next} />
          <CurrentPasswordField errors={errors} hint="Your password again, so that a borrowed session cannot add or remove passkeys." />
          <Button type="submit" variant="secondary">
            Confirm
          </Button>
        </form>
      )}
      {!secondFactor && !hasPassword && <p>Your account has no password: sign out and sign in again, and come back within 15 minutes.</p>}
    </div>
  );
}
