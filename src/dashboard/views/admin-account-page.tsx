import type { AccountFate, WorkspaceFate } from '../../services/admin-accounts.js';
import type { SecondFactors } from '../../services/two-factor.js';
import { Button, ConfirmForm, CsrfInput, Panel, Time } from './components.js';
import { type Frame, Layout } from './layout.js';

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function Fates({ workspaces }: { workspaces: WorkspaceFate[] }) {
  return (
    <ul class="health-list">
      {workspaces.map((w) => (
        <li key={w.id}>
          <strong>{w.name}</strong> ({count(w.forms, 'form', 'forms')}, {count(w.submissions, 'submission', 'submissions')}
          {w.others > 0 ? `, ${count(w.others, 'other person', 'other people')} in its team` : ''})
        </li>
      ))}
    </ul>
  );
}

/** One account as the instance admin sees it: what disabling and deleting it do, and the buttons. */
export function AccountAdminPage({ frame, fate, factors }: { frame: Frame; fate: AccountFate; factors: SecondFactors }) {
  const disabled = fate.disabledAt !== null;
  return (
    <Layout title={`Account ${fate.email}`} frame={frame}>
      <p class="breadcrumb">
        <a href="/admin#accounts">← Instance admin</a>
      </p>
      <Panel title={disabled ? 'Disabled' : 'Disable'} id="disable">
        {disabled ? (
          <p>
            Disabled on <Time ms={fate.disabledAt} />: it cannot log in, and its API tokens are refused. Its workspaces still receive submissions.
          </p>
        ) : (
          <p>
            A disabled account cannot log in, its sessions end at once and its API tokens are refused. Its workspaces keep receiving submissions and delivering
            them; nothing is deleted, and you can enable it again.
          </p>
        )}
        <form method="post" action={`/admin/accounts/${fate.id}/${disabled ? 'enable' : 'disable'}`}>
          <CsrfInput token={frame.csrf} />
          <Button type="submit" variant="secondary">
            {disabled ? 'Enable this account' : 'Disable this account'}
          </Button>
        </form>
      </Panel>
      <Panel title="Two-factor sign-in" id="two-factor">
        {factors.app || factors.passkeys > 0 ? (
          <>
            <p>
              It signs in with {factors.app ? 'an authenticator app' : ''}
              {factors.app && factors.passkeys > 0 ? ' and ' : ''}
              {factors.passkeys > 0 ? count(factors.passkeys, 'passkey', 'passkeys') : ''}. When its owner has lost them and their recovery codes, reset them:
              the password alone signs in again, and every session of the account ends. Make sure who is asking first.
            </p>
            <ConfirmForm
              csrf={frame.csrf}
              action={`/admin/accounts/${fate.id}/reset-two-factor`}
              button={`Reset the second factors of ${fate.email}`}
              cancel="/admin#accounts"
            />
          </>
        ) : (
          <p>It has no second factor: its password alone signs in.</p>
        )}
      </Panel>
      <Panel title="Delete" id="delete">
        {fate.deleted.length > 0 ? (
          <>
            <p>It alone owns these workspaces: deleting the account deletes them, with their forms, submissions and files. This cannot be undone.</p>
            <Fates workspaces={fate.deleted} />
          </>
        ) : (
          <p>It owns no workspace alone: no workspace is deleted with it.</p>
        )}
        {fate.kept.length > 0 && (
          <>
            <p>These workspaces stay, with the rest of their team; the account leaves them:</p>
            <Fates workspaces={fate.kept} />
          </>
        )}
        <ConfirmForm csrf={frame.csrf} action={`/admin/accounts/${fate.id}/delete`} button={`Delete ${fate.email}`} cancel="/admin#accounts" />
      </Panel>
    </Layout>
  );
}
