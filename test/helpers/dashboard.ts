import assert from 'node:assert/strict';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { TestApp } from './app.js';

/** Signs up through the browser and lands on the new account's workspace. */
export async function signUp(page: Page, app: TestApp, email: string, password: string): Promise<void> {
  await page.goto(`${app.publicUrl}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Create account' }).click()]);
}

/** A new account signed up in a browser context of its own (desktop width): its page, its id and its workspace's. */
export async function signedUpOwner(
  browser: Browser,
  app: TestApp,
  email: string,
  password: string,
  options: BrowserContextOptions = {},
): Promise<{ page: Page; userId: string; workspaceId: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  await signUp(page, app, email, password);
  const userId = (await app.ctx.users.requireByEmail(email)).id;
  return { page, userId, workspaceId: new URL(page.url()).pathname.split('/')[2]! };
}

/** Logs in through the browser; `landing` is where the login should lead. */
export async function logIn(page: Page, app: TestApp, email: string, password: string, landing: RegExp = /\/w\/[^/]+$/): Promise<void> {
  await page.goto(`${app.publicUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(landing), page.getByRole('button', { name: 'Log in' }).click()]);
}

/** Logs out through the account menu. */
export async function logOut(page: Page): Promise<void> {
  await page.getByText(/^Account: \S+@/).click();
  await Promise.all([page.waitForURL(/\/login$/), page.getByRole('button', { name: 'Log out' }).click()]);
}

export interface PageAnswer {
  status: number;
  headers: Headers;
  location: string | null;
  html: string;
}

/**
 * A browser without a browser: keeps cookies and reads each page's CSRF token, for the tests that
 * post what a person (or an attacker) could, and check what changed.
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(readonly app: TestApp) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<PageAnswer> {
    return this.send('GET', path, undefined, headers);
  }

  /**
   * Posts a form as a page of this site would (its Origin and its CSRF token unless given). Fields
   * as `[name, value]` pairs can repeat a name, as a list of inputs does.
   */
  async post(path: string, fields: Record<string, string> | [string, string][], headers: Record<string, string> = {}): Promise<PageAnswer> {
    const pairs = Array.isArray(fields) ? fields : Object.entries(fields);
    const withToken: [string, string][] = pairs.some(([name]) => name === '_csrf') ? pairs : [['_csrf', this.csrf], ...pairs];
    const body = new URLSearchParams(withToken).toString();
    return this.send('POST', path, body, { origin: this.app.publicUrl, 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  /** Signs up or logs in (`path` /signup or /login) and checks that it worked. */
  async enter(path: '/signup' | '/login', email: string, password: string): Promise<void> {
    await this.get(path);
    const answer = await this.post(path, { email, password });
    assert.equal(answer.status, 303, `${path} as ${email}: ${answer.html.slice(0, 300)}`);
  }

  private async send(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<PageAnswer> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(`${this.app.publicUrl}${path}`, {
      method,
      body,
      redirect: 'manual',
      headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0$/i.test(a));
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    const html = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html);
    if (token) this.csrf = token[1]!;
    return { status: response.status, headers: response.headers, location: response.headers.get('location'), html };
  }
}

/** The text of HTML with its five escaped characters back. */
export const decodeEntities = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The text of the element with that id in a page's HTML, tags dropped and entities decoded. */
export function elementText(html: string, id: string): string | undefined {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return match ? decodeEntities(match[1]!.replace(/<[^>]+>/g, '')).trim() : undefined;
}

/** The ids of the submissions a list page shows (its lines' checkboxes), in order. */
export function listedIds(html: string): string[] {
  return [...html.matchAll(/name="id" value="([^"]+)"/g)].map((m) => m[1]!);
}
