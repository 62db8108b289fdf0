import type { TestApp } from './app.js';

/** One method of one route, as Fastify registered it: `path` with `:param` segments. */
export interface Route {
  method: string;
  path: string;
}

/**
 * Every route of the API's Fastify instance (the management API and the dashboard), read from
 * `printRoutes`, so a suite that must cover every route learns of a new one without being told.
 * HEAD (Fastify's automatic twin of each GET) is left out.
 */
export function registeredRoutes(app: TestApp): Route[] {
  // e.g. "│   │   └── /:kind (GET, HEAD, POST)": four characters of tree per level, a segment, its methods
  const tree = app.surfaces.api.printRoutes({ commonPrefix: false });
  const prefixes: string[] = [];
  const routes: Route[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)(?:[├└]── )(\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const segment = match[2]!;
    const path = depth === 0 ? segment : prefixes[depth - 1]! + (prefixes[depth - 1]!.endsWith('/') || segment.startsWith('/') ? '' : '/') + segment;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD')) routes.push({ method, path });
  }
  if (routes.length === 0) throw new Error(`no routes read from:\n${tree}`);
  return routes;
}

/** The dashboard's routes: everything outside the API, its docs, health check and static assets. */
export function dashboardRoutes(app: TestApp): Route[] {
  return registeredRoutes(app).filter((r) => !/^\/(public\/v1|healthz|docs\/|assets\/)/.test(r.path));
}

/** Every operation of the OpenAPI document the service serves, with paths relative to `{base_url}` in Fastify's `:param` form. */
export async function apiOperations(app: TestApp): Promise<(Route & { operationId: string })[]> {
  const document = (await app.api('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { operationId: string }>> };
  const operations: (Route & { operationId: string })[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      operations.push({ method: method.toUpperCase(), path: path.replace(/\{(\w+)\}/g, ':$1'), operationId: operation.operationId });
    }
  }
  return operations;
}

/** The `:param` names of a route path, in order. */
export function paramsOf(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

/** The path with each `:param` replaced by its value (URL-encoded). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${path}`);
    return encodeURIComponent(value);
  });
}
