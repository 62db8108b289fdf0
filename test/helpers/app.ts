import { type Logger, pino } from 'pino';
import type { Surfaces } from '../../src/app.js';
import { listen } from '../../src/cli/serve.js';
import { buildConfig, type Config } from '../../src/config/config.js';
import type { RawEnv } from '../../src/config/env.js';
import { openContext, type AppContext } from '../../src/context.js';
import { startDelivery, type Delivery } from '../../src/jobs/delivery.js';
import { createMigratedTestDatabase, type TestDatabase } from './database.js';

export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, the text otherwise, null when empty. */
  body: any;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** A raw body sent as is (with its own content-type in `headers`). */
  raw?: string;
}

export interface TestApp {
  ctx: AppContext;
  /** The Fastify instances: a test can list the routes they registered. */
  surfaces: Surfaces;
  baseUrl: string;
  submitUrl: string;
  publicUrl: string;
  /** Calls the management API: `path` is relative to `{base_url}`, e.g. `/forms`. */
  api(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** Calls any URL of the running service. */
  fetch(method: string, url: string, options?: RequestOptions): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * The configuration of a test instance on `database`: loopback, ephemeral ports, the API's and
 * submit surface's rate limits off unless `env` sets them (the login limits keep their defaults), and
 * recipients' confirmation off unless `env` sets it (`confirmRecipients: 'on'`): most tests send
 * notifications to made-up addresses and are about something else (test/dashboard/recipients*.test.ts are about it).
 */
export function testConfig(database: TestDatabase, env: RawEnv = {}): Config {
  return buildConfig({
    databaseUrl: database.url,
    dataDir: database.dataDir,
    host: '127.0.0.1',
    port: '0',
    submitPort: '0',
    rateLimitApi: 'off',
    rateLimitSubmit: 'off',
    confirmRecipients: 'off',
    ...env,
  });
}

/**
 * Starts the real service (both surfaces, on loopback, ephemeral ports) on a fresh database of the
 * suite's dialect, or on `options.database` (a second instance of one installation; it is left in
 * place at close). The API's and submit surface's rate limits are off unless `env` sets them.
 * `options.logger` receives the service's log lines (silent by default).
 */
export async function startApp(env: RawEnv = {}, options: { delivery?: boolean; database?: TestDatabase; logger?: Logger } = {}): Promise<TestApp> {
  const database: TestDatabase = options.database ?? (await createMigratedTestDatabase());
  const owned = options.database === undefined;
  const config = testConfig(database, env);
  const ctx = await openContext(config);
  const logger = options.logger ?? pino({ level: process.env.FORMGATE_TEST_LOG ?? 'silent' });
  let surfaces: Surfaces;
  let delivery: Delivery | null = null;
  try {
    surfaces = await listen(ctx, logger, { publicUrl: false, submitUrl: false });
    // as `formgate serve` does; off by default so that most tests run no background worker
    if (options.delivery) delivery = startDelivery(ctx, logger);
  } catch (error) {
    await ctx.close();
    if (owned) await database.drop();
    throw error;
  }

  async function call(method: string, url: string, options: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, headers: response.headers, body: text === '' ? null : type.includes('json') ? JSON.parse(text) : text };
  }

  let closed = false;
  return {
    ctx,
    surfaces,
    baseUrl: config.baseUrl,
    submitUrl: config.submitUrl,
    publicUrl: config.publicUrl,
    api: (method, path, options) => call(method, config.baseUrl + path, options),
    fetch: call,
    async close() {
      if (closed) return;
      closed = true;
      await surfaces.close();
      await delivery?.stop();
      await ctx.close().catch(() => undefined);
      if (owned) await database.drop();
    },
  };
}
