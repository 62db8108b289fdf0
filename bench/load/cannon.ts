/**
 * The load process: runs autocannon against one URL, first a warm-up (not reported), then the
 * measured run, and prints the measured figures as one JSON line. It runs as its own process so
 * that the load tool never shares an event loop with the server it measures.
 */
import autocannon, { type Options, type RequestSpec, type Result } from 'autocannon';
import type { LoadFigures, LoadSpec } from './spec.js';

function requestsOf(spec: LoadSpec): RequestSpec[] {
  const base = { method: spec.method, headers: spec.headers, ...(spec.body === undefined ? {} : { body: spec.body }) };
  if (spec.uniqueBodies) return spec.paths.map((path) => ({ ...base, path, setupRequest: withUniqueBody }));
  if (!spec.followCursorPages) return spec.paths.map((path) => ({ ...base, path }));
  const first = spec.paths[0]!;
  // NOTE: autocannon resets a connection's context when its request list wraps, so the walk is a list of
  // `pages` requests that share the cursor through the context; at the end (or the last page) it starts over.
  return Array.from({ length: spec.followCursorPages }, () => ({
    ...base,
    setupRequest: (request: RequestSpec, context: Record<string, unknown>) => {
      const cursor = context.cursor as string | undefined;
      return { ...request, path: cursor ? `${first}&startingAfter=${encodeURIComponent(cursor)}` : first };
    },
    onResponse: (status: number, body: string, context: Record<string, unknown>) => {
      context.cursor = status === 200 ? ((JSON.parse(body) as { nextCursor: string | null }).nextCursor ?? undefined) : undefined;
    },
  }));
}

// NOTE: autocannon's own idReplacement miscounts Content-Length (its ids are not of fixed length), so the bodies are made here.
let sent = 0;
function withUniqueBody(request: RequestSpec): RequestSpec {
  return { ...request, body: request.body!.replace('[<id>]', `${process.pid}-${String(++sent).padStart(10, '0')}`) };
}

function figuresOf(result: Result, warmup2xx: number): LoadFigures {
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]));
  return {
    requestsPerSec: Math.round(result['2xx'] / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    answered2xx: result['2xx'],
    durationSec: result.duration,
    statusCodes,
    warmup2xx,
  };
}

async function run(spec: LoadSpec): Promise<LoadFigures> {
  const options = (durationSec: number): Options => ({
    url: spec.origin,
    connections: spec.connections,
    duration: durationSec,
    timeout: 10,
    requests: requestsOf(spec),
  });
  const warmup = spec.warmupSec > 0 ? await autocannon(options(spec.warmupSec)) : null;
  return figuresOf(await autocannon(options(spec.durationSec)), warmup?.['2xx'] ?? 0);
}

const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
run(spec).then(
  (figures) => process.stdout.write(`${JSON.stringify(figures)}\n`),
  (error: unknown) => {
    process.stderr.write(`load process failed: ${String(error)}\n`);
    process.exit(1);
  },
);
