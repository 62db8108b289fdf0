// What health checks and scrapers ask every few seconds: at info, 36 lines a minute on an idle instance (issue 38).
const PROBES = new Set(['/healthz', '/metrics']);

/** The level of a request's line on either surface: a probe that succeeded is debug; everything else, a probe that failed too, info. */
export function requestLogLevel(path: string, status: number): 'debug' | 'info' {
  return PROBES.has(path) && status < 400 ? 'debug' : 'info';
}
