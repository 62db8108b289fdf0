import type { PlanRules } from '../../domain/plans.js';
import type { ComponentChildren } from 'preact';
import { assetUrl } from '../assets.js';
import type { DeliveriesState } from '../../jobs/delivery-switch.js';
import type { Plan } from '../../domain/plans.js';
import type { Flash } from '../flash.js';
import { CsrfInput } from './components.js';
import { pausedBy } from './deliveries-switch-panel.js';

export type Section = 'forms' | 'members' | 'tokens' | 'account' | 'admin' | 'settings' | 'workspaces';

/** A workspace in the switcher. */
export interface FrameWorkspace {
  id: string;
  name: string;
  plan: Plan;
  /** Whose it is: `you`, the creator's address, or null when that account is gone. */
  owner: string | null;
}

/** What every page behind the login shows around its content: who is logged in and where. */
export interface Frame {
  csrf: string;
  flash: Flash | null;
  account: { email: string; isAdmin: boolean };
  /** For the instance admin when no SMTP server is configured: where emails are written instead. */
  unsentMail?: { folder: string } | null;
  /** For the instance admin while deliveries are paused: by what, to say so on every page. */
  deliveriesPaused?: Pick<DeliveriesState, 'source' | 'pause'> | null;
  workspaces: FrameWorkspace[];
  current: FrameWorkspace | null;
  section?: Section;
  /** The installation's plan rules: limits, features and the plans' names as pages show them. */
  plans: PlanRules;
}

interface LayoutProps {
  title: string;
  /** The page's heading when it is not its title (a form's pages: the form's name). */
  heading?: string;
  frame: Frame;
  children: ComponentChildren;
  /** Scripts this page needs (by file name under /assets). */
  scripts?: string[];
}

/** What search engines and link previews say of a page that has no sentence of its own (Lighthouse asks every page for one). */
export const DASHBOARD_DESCRIPTION = 'The dashboard of this Formgate installation, a self-hosted form backend: forms, submissions, deliveries and settings.';

function Head({ title, scripts = [], description = DASHBOARD_DESCRIPTION }: { title: string; scripts?: string[]; description?: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <meta name="description" content={description} />
      <title>{`${title} · Formgate`}</title>
      <link rel="stylesheet" href={assetUrl('app.css')} />
      <link rel="icon" href={assetUrl('icon.svg')} type="image/svg+xml" />
      <script src={assetUrl('time-zone.js')} defer />
      {scripts.map((script) => (
        <script src={assetUrl(script)} defer key={script} />
      ))}
    </head>
  );
}

function NavLink({ href, active, children }: { href: string; active: boolean; children: ComponentChildren }) {
  return (
    <a href={href} aria-current={active ? 'page' : undefined}>
      {children}
    </a>
  );
}

/** The workspace switcher: a disclosure of links, so it works from the keyboard and without script. */
function WorkspaceSwitcher({ frame }: { frame: Frame }) {
  return (
    <details class="menu">
      <summary>
        <span class="visually-hidden">Workspace: </span>
        {frame.current?.name ?? 'Workspaces'}
      </summary>
      <div class="menu-panel">
        <ul aria-label="Your workspaces">
          {frame.workspaces.map((w) => (
            <li key={w.id}>
              <a href={`/w/${w.id}`} aria-current={w.id === frame.current?.id ? 'true' : undefined}>
                <span class="menu-item-name">{w.name}</span>
                <span class="menu-item-detail">
                  {w.owner === 'you' ? 'Yours' : w.owner ? `Owner: ${w.owner}` : 'Owner gone'}
                  {/* team mode speaks no plans (issue 41, item 16) */}
                  {!frame.plans.team && ` · ${frame.plans.label(w.plan)}`}
                </span>
              </a>
            </li>
          ))}
        </ul>
        <a class="menu-action" href="/workspaces">
          All workspaces
        </a>
        <a href="/workspaces/new">New workspace</a>
      </div>
    </details>
  );
}

/** Told to the instance admin on every page while emails are written to files instead of sent. */
function UnsentMailBanner({ folder }: { folder: string }) {
  return (
    <section class="mail-banner" aria-labelledby="mail-banner-title">
      <p class="mail-banner-line">
        <strong id="mail-banner-title">Emails are not being sent.</strong>
      </p>
      <p class="mail-banner-line">
        They are written to <code class="file-path">{folder}</code> instead: FORMGATE_SMTP_URL is not set. <a href="/admin#mail">Set up mail</a>
      </p>
    </section>
  );
}

/** Told to the instance admin on every page while no email, webhook or Slack message leaves. */
function PausedDeliveriesBanner({ paused }: { paused: NonNullable<Frame['deliveriesPaused']> }) {
  return (
    <section class="mail-banner" aria-labelledby="paused-banner-title">
      <p class="mail-banner-line">
        <strong id="paused-banner-title">Deliveries are paused.</strong>
      </p>
      <p class="mail-banner-line">
        No email, webhook or Slack message is sent (paused by {pausedBy(paused)}); submissions are kept and their deliveries wait.{' '}
        <a href="/admin#deliveries">Deliveries switch</a>
      </p>
    </section>
  );
}

function AccountMenu({ frame }: { frame: Frame }) {
  return (
    <details class="menu menu-end">
      <summary>
        <span class="visually-hidden">Account: </span>
        {/* at phone width a short word keeps the header on two lines; the address is still read out */}
        <span class="account-long">{frame.account.email}</span>
        <span class="account-short" aria-hidden="true">
          Account
        </span>
      </summary>
      <div class="menu-panel">
        <ul>
          <li>
            <a href="/account">Account settings</a>
          </li>
          {frame.account.isAdmin && (
            <li>
              <a href="/admin">Admin</a>
            </li>
          )}
        </ul>
        <form method="post" action="/logout">
          <CsrfInput token={frame.csrf} />
          <button type="submit" class="link-button">
            Log out
          </button>
        </form>
      </div>
    </details>
  );
}

/** What the last change said, at the top of every page's content: green when done, amber when not (or only in part). */
function FlashMessage({ flash }: { flash: Flash | null }) {
  if (!flash) return null;
  return (
    <div class={flash.tone === 'warning' ? 'flash warning' : 'flash'} role="status">
      {flash.message}
    </div>
  );
}

/** The page of a logged-in person: header with navigation, the flash message, then the content. */
export function Layout({ title, heading, frame, children, scripts }: LayoutProps) {
  const w = frame.current;
  return (
    <html lang="en">
      <Head title={title} scripts={scripts} />
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <a class="brand" href="/">
            Formgate
          </a>
          <WorkspaceSwitcher frame={frame} />
          <nav aria-label="Main" class="main-nav">
            {w && (
              <NavLink href={`/w/${w.id}`} active={frame.section === 'forms'}>
                Forms
              </NavLink>
            )}
            {w && (
              <NavLink href={`/w/${w.id}/members`} active={frame.section === 'members'}>
                Members
              </NavLink>
            )}
            {w && (
              <NavLink href={`/w/${w.id}/settings`} active={frame.section === 'settings'}>
                Settings
              </NavLink>
            )}
            <NavLink href="/account/tokens" active={frame.section === 'tokens'}>
              API tokens
            </NavLink>
          </nav>
          <AccountMenu frame={frame} />
        </header>
        {frame.deliveriesPaused && <PausedDeliveriesBanner paused={frame.deliveriesPaused} />}
        {frame.unsentMail && <UnsentMailBanner folder={frame.unsentMail.folder} />}
        <main id="main" tabIndex={-1}>
          <FlashMessage flash={frame.flash} />
          <h1>{heading ?? title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/** The page of someone not logged in (sign up, log in, reset): one narrow card. */
export function PublicLayout({
  title,
  children,
  flash = null,
  lead,
  scripts,
}: {
  title: string;
  children: ComponentChildren;
  flash?: Flash | null;
  lead?: string;
  /** Scripts this page needs (by file name under /assets): the passkey forms'. */
  scripts?: string[];
}) {
  return (
    <html lang="en">
      <Head title={title} description={lead} scripts={scripts} />
      <body class="public">
        <main id="main" class="card">
          <p class="brand">Formgate</p>
          <FlashMessage flash={flash} />
          <h1>{title}</h1>
          {lead && <p class="lead">{lead}</p>}
          {children}
        </main>
      </body>
    </html>
  );
}
