/**
 * Origins as browsers send them in the `Origin` header: `https://example.com`, `http://localhost:3000`.
 * A form's allowed origins are written this way so that comparing them is comparing strings.
 */

// a DNS name (IDNs in their xn-- form, as URL writes them) or an IP address literal
const HOST = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/;

/** Why `value` is not an origin as a browser writes it (http or https, lowercase, no default port, no path), or null when it is one. */
export function originProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an origin such as https://example.com';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https origin such as https://example.com';
  if (url.username || url.password) return 'must not hold a user name or password';
  if (!HOST.test(url.hostname)) return 'must name one host of letters, digits, hyphens and dots (no wildcards; list each site)';
  if (url.origin !== value) {
    const extra = url.pathname !== '/' || url.search || url.hash;
    return extra ? `must be an origin only, without a path, query or fragment (${url.origin})` : `must be written as a browser sends it: ${url.origin}`;
  }
  return null;
}

/** `value` as an absolute http or https URL, or null for anything else (a redirect target, a back link). */
export function httpUrl(value: string | undefined | null): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** The origin of an absolute http(s) URL, or null for anything else. */
export function httpOriginOf(value: string | undefined | null): string | null {
  return httpUrl(value)?.origin ?? null;
}
