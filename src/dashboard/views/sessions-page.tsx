import { browserName } from '../../domain/browser-names.js';
import type { ListedSession } from '../../services/sessions.js';
import { Badge, Button, CsrfInput, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { type Frame, Layout } from './layout.js';

interface SessionsPageProps {
  frame: Frame;
  sessions: ListedSession[];
  /** The session of the browser looking at the page. */
  currentIdHash: string;
}

/** The account's signed-in browsers and devices: what, where and when, each with a way to sign it out (issue 43, item 5). */
export function SessionsPage({ frame, sessions, currentIdHash }: SessionsPageProps) {
  const columns: Column<ListedSession>[] = [
    {
      label: 'Browser',
      rowHeader: true,
      cell: (s) => (
        <>
          <strong>{browserName(s.userAgent)}</strong> {s.idHash === currentIdHash && <Badge>This browser</Badge>}
        </>
      ),
    },
    { label: 'Address', cell: (s) => <code>{s.ip ?? 'Unknown'}</code> },
    { label: 'Signed in', cell: (s) => <Time ms={s.createdAt} /> },
    { label: 'Last active', cell: (s) => <Time ms={s.lastSeenAt} /> },
    {
      label: 'Actions',
      hideLabel: true,
      cell: (s) =>
        s.idHash === currentIdHash ? (
          <form method="post" action="/logout">
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="secondary">
              Log out<span class="visually-hidden"> of this browser</span>
            </Button>
          </form>
        ) : (
          <form method="post" action="/account/sessions/end">
            <CsrfInput token={frame.csrf} />
            <input type="hidden" name="session" value={s.idHash} />
            <Button type="submit" variant="secondary">
              Sign out
              <span class="visually-hidden">
                {' '}
                {browserName(s.userAgent)} signed in from {s.ip ?? 'an unknown address'}
              </span>
            </Button>
          </form>
        ),
    },
  ];
  return (
    <Layout title="Sessions" frame={frame}>
      <p class="lead">Every browser and device signed in to your account now. Sign out any you do not know, then change your password.</p>
      <Panel title="Signed in">
        <DataTable label="Signed-in browsers" class="sessions" columns={columns} rows={sessions} rowKey={(s) => s.idHash} />
      </Panel>
      <Panel title="Log out everywhere">
        <p>
          To sign out every browser at once, this one included, use <a href="/account#log-out-everywhere">Log out everywhere</a> on your account page.
        </p>
      </Panel>
    </Layout>
  );
}
