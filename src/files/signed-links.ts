// Links to a file that work without a token until they expire (issue 28): what a webhook payload and
// a Slack message carry, so a receiver such as Zapier can fetch the file. Signed with the
// installation's secret (a key derived for this use alone), so rotating the secret keeps links
// handed out before valid (FORMGATE_SECRET_PREVIOUS) and no other signature passes for one.
import type { Keyring } from '../keyring.js';

/** How long a link in a webhook or a Slack message works: a week, as a receiver may retry for days. */
export const FILE_LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export class FileLinks {
  private readonly keys: Keyring;
  private readonly baseUrl: () => string;
  private readonly publicUrl: () => string;

  /**
   * `baseUrl`: the management API's base (`https://forms.example.com/public/v1`), or a function
   * giving it: read at each use, as the server derives it once listening when it is not configured.
   * `publicUrl`: the dashboard's, likewise (the API's base without `/public/v1` when not given).
   */
  constructor(keyring: Keyring, baseUrl: string | (() => string), publicUrl?: () => string) {
    this.keys = keyring.derive('file-links');
    this.baseUrl = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
    this.publicUrl = publicUrl ?? (() => this.baseUrl().replace(/\/public\/v1$/, ''));
  }

  /**
   * The file's download on the dashboard: what the dashboard's exports link (issue 39, item 18). It
   * opens for a signed-in member of the file's workspace, sends anyone else to sign in first, and is
   * the 404 page for another account: the same rule as the submission's page, with no expiry.
   */
  dashboardUrl(submissionId: string, fileId: string): string {
    return `${this.publicUrl()}/submissions/${encodeURIComponent(submissionId)}/files/${encodeURIComponent(fileId)}`;
  }

  /** The file's address of the management API: it answers a bearer token with `submissions:read` on its workspace. */
  url(fileId: string): string {
    return `${this.baseUrl()}/files/${fileId}`;
  }

  /** The same address, signed to work without a token until `expiresAt` (epoch ms). */
  signedUrl(fileId: string, expiresAt: number): string {
    const expires = Math.floor(expiresAt / 1000);
    return `${this.url(fileId)}?expires=${expires}&signature=${this.keys.sign(`${fileId}.${expires}`)}`;
  }

  /** Whether `expires` and `signature` (from the query) sign `fileId` and have not expired at `now`. */
  verify(fileId: string, expires: string | undefined, signature: string | undefined, now = Date.now()): boolean {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
    if (Number(expires) * 1000 <= now) return false;
    return this.keys.verify(`${fileId}.${expires}`, signature);
  }
}
