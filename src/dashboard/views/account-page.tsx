import { timeZones } from '../../domain/time-zones.js';
import type { FieldErrors } from '../field-errors.js';
import { Button, CsrfInput, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';
import { RevokeTokensCheck } from './revoke-tokens-check.js';

interface AccountPageProps {
  frame: Frame;
  email: string;
  /** Live sessions of the account, this one included. */
  sessions: number;
  /** The account's active API tokens, said beside "Also revoke my API tokens". */
  activeTokens: number;
  /** Messages of a refused password change. */
  errors?: FieldErrors;
  /** The account's saved zone (null: the browser's). */
  timeZone: string | null;
  /** The zone the browser said, when it did. */
  browserZone: string | null;
  /** Messages of a refused time zone. */
  zoneErrors?: FieldErrors;
  /** Single sign-on only, for an account that is not an admin's: why there is no password to change (null: there is). */
  passwordsOff?: string | null;
  /** The account's second factors, summed up in "Signing in". */
  signingIn: { app: boolean; passkeys: number };
}

/** The account's own settings: who it is, its password, its sessions. */
export function AccountPage({ frame, email, sessions, activeTokens, errors, timeZone, browserZone, zoneErrors, signingIn, passwordsOff }: AccountPageProps) {
  const others = sessions - 1;
  return (
    <Layout title="Account settings" frame={frame}>
      <Panel title="Your account">
        <dl class="stats">
          <div>
            <dt>Email</dt>
            <dd class="account-email">{email}</dd>
          </div>
          <div>
            <dt>Live sessions</dt>
            <dd>{sessions}</dd>
          </div>
        </dl>
        <p class="muted">
          {others <= 0 ? 'You are logged in on this browser only.' : `You are logged in on this browser and ${others} other${others === 1 ? '' : 's'}.`}
        </p>
      </Panel>
      <Panel title="Signing in">
        <ul>
          <li>
            <a href="/account/two-factor">Two-factor sign-in</a>: {secondFactorSummary(signingIn)}
          </li>
          <li>
            <a href="/account/passkeys">Passkeys</a>: {signingIn.passkeys === 0 ? 'none' : signingIn.passkeys}
          </li>
          <li>
            <a href="/account/sessions">Sessions</a>: see each browser signed in, and sign any of them out
          </li>
        </ul>
      </Panel>
      <Panel title="Time zone">
        <FormError errors={zoneErrors} />
        <form method="post" action="/account/time-zone">
          <CsrfInput token={frame.csrf} />
          <div class="field">
            <label for="field-timeZone">Show times in</label>
            <p class="hint" id="field-timeZone-hint">
              Every time of the dashboard is shown in this zone; hover over one to see it in UTC.
            </p>
            <select
              id="field-timeZone"
              name="timeZone"
              aria-describedby={zoneErrors?.timeZone ? 'field-timeZone-hint field-timeZone-error' : 'field-timeZone-hint'}
              aria-invalid={zoneErrors?.timeZone ? 'true' : undefined}
            >
              <option value="" selected={timeZone === null}>
                {browserZone ? `Your browser’s (${browserZone})` : 'Your browser’s (UTC until it tells us)'}
              </option>
              {timeZones().map((zone) => (
                <option key={zone} value={zone} selected={zone === timeZone}>
                  {zone}
                </option>
              ))}
            </select>
            {zoneErrors?.timeZone && (
              <p class="error" id="field-timeZone-error">
                {zoneErrors.timeZone}
              </p>
            )}
          </div>
          <button type="submit">Save time zone</button>
        </form>
      </Panel>
      {passwordsOff ? (
        <Panel title="Password">
          <p>{passwordsOff}</p>
        </Panel>
      ) : (
        <Panel title="Change password">
          <FormError errors={errors} />
          <form method="post" action="/account/password" noValidate>
            <CsrfInput token={frame.csrf} />
            <Field label="Current password" name="currentPassword" type="password" autocomplete="current-password" required errors={errors} />
            <Field
              label="New password"
              name="newPassword"
              type="password"
              autocomplete="new-password"
              hint="At least 8 characters. Your other browsers are logged out when it changes; this one stays logged in."
              required
              errors={errors}
            />
            <RevokeTokensCheck id="password-revoke-tokens" activeTokens={activeTokens} />
            <button type="submit">Change password</button>
          </form>
        </Panel>
      )}
      <Panel title="Log out everywhere" id="log-out-everywhere">
        <p>Ends every session of this account, this one included: anyone logged in as you, on any device, has to log in again.</p>
        <form method="post" action="/account/logout-everywhere">
          <CsrfInput token={frame.csrf} />
          <RevokeTokensCheck id="logout-revoke-tokens" activeTokens={activeTokens} />
          <Button type="submit" variant="secondary">
            Log out everywhere
          </Button>
        </form>
      </Panel>
    </Layout>
  );
}

function secondFactorSummary({ app, passkeys }: { app: boolean; passkeys: number }): string {
  if (app && passkeys > 0) return 'on (an authenticator app and passkeys)';
  if (app) return 'on (an authenticator app)';
  if (passkeys > 0) return 'on (passkeys)';
  return 'off';
}
