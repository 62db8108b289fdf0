import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildConfig, ConfigError, parseRateLimit } from '../../src/config/config.js';
import { readEnv, type RawEnv } from '../../src/config/env.js';

/** buildConfig throws a ConfigError whose message names `variable`. */
function assertConfigError(raw: RawEnv, variable: string): void {
  assert.throws(
    () => buildConfig(raw),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
      assert.ok(error.message.includes(variable), `the message names ${variable}: ${error.message}`);
      return true;
    },
    JSON.stringify(raw),
  );
}

describe('buildConfig: the dashboard’s settings', () => {
  it('defaults to invitations only, the FREE plan, 7-day idle and 30-day absolute sessions', () => {
    const config = buildConfig({});
    assert.equal(config.signup, 'invite');
    assert.equal(config.defaultPlan, 'FREE');
    assert.equal(config.sessionIdleMs, 7 * 86_400_000);
    assert.equal(config.sessionMaxAgeMs, 30 * 86_400_000);
  });

  it('reads each setting in any case and durations in minutes, hours or days', () => {
    const config = buildConfig({ signup: ' Open ', defaultPlan: 'bundle_50000', sessionIdleTimeout: '30m', sessionMaxAge: '12h' });
    assert.equal(config.signup, 'open');
    assert.equal(config.defaultPlan, 'BUNDLE_50000');
    assert.equal(config.sessionIdleMs, 30 * 60_000);
    assert.equal(config.sessionMaxAgeMs, 12 * 3_600_000);
  });

  it('refuses values it cannot use, naming the variable', () => {
    assertConfigError({ signup: 'everyone' }, 'FORMGATE_SIGNUP');
    assertConfigError({ defaultPlan: 'GOLD' }, 'FORMGATE_DEFAULT_PLAN');
    for (const value of ['0m', '10', '5s', 'forever', '-1d']) assertConfigError({ sessionIdleTimeout: value }, 'FORMGATE_SESSION_IDLE_TIMEOUT');
    assertConfigError({ sessionIdleTimeout: '2d', sessionMaxAge: '1d' }, 'FORMGATE_SESSION_IDLE_TIMEOUT');
  });
});

describe('buildConfig: the delivery lease', () => {
  it('holds a claimed job 30 s by default, or as long as FORMGATE_DELIVERY_LEASE says, in seconds or minutes', () => {
    assert.equal(buildConfig({}).deliveryLeaseMs, 30_000);
    assert.equal(buildConfig({ deliveryLease: '5s' }).deliveryLeaseMs, 5_000);
    assert.equal(buildConfig({ deliveryLease: ' 2M ' }).deliveryLeaseMs, 120_000);
    assert.equal(buildConfig({ deliveryLease: '10m' }).deliveryLeaseMs, 600_000);
  });

  it('refuses a lease its heartbeat could not keep (under 5 s), one past 10 minutes, and anything not a duration', () => {
    for (const value of ['4s', '0s', '11m', '30', '1h', 'soon', '-5s']) assertConfigError({ deliveryLease: value }, 'FORMGATE_DELIVERY_LEASE');
  });
});

describe('buildConfig', () => {
  it('defaults to the design’s table: SQLite in ./data, loopback, ports 8080 and 8081', () => {
    const config = buildConfig({});
    assert.deepEqual(config.database, { dialect: 'sqlite', file: path.resolve('data', 'formgate.db') });
    assert.equal(config.dataDir, path.resolve('data'));
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.submitPort, 8081);
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(config.baseUrl, 'http://127.0.0.1:8080/public/v1');
    assert.equal(config.submitUrl, 'http://127.0.0.1:8081');
    assert.equal(config.secret, null, 'generated and stored in the database');
    assert.equal(config.smtpUrl, null, 'mail goes to data/outbox');
    assert.equal(config.mailFrom, 'Formgate <forms@localhost>');
    assert.equal(config.redisUrl, null, 'in-process counters');
    assert.deepEqual(config.trustProxy, { hops: 0 });
    assert.equal(config.allowPrivateWebhooks, false);
    assert.equal(config.spamd, null, 'no spamd asked: the built-in content rules alone');
    // "sensible per-IP limits": on by default
    assert.ok(config.rateLimitApi && config.rateLimitApi.max > 0 && config.rateLimitApi.windowMs > 0);
    assert.ok(config.rateLimitSubmit && config.rateLimitSubmit.max > 0 && config.rateLimitSubmit.windowMs > 0);
  });

  it('keeps the database in the data folder when only FORMGATE_DATA_DIR is set', () => {
    const config = buildConfig({ dataDir: '/var/lib/formgate' });
    assert.equal(config.dataDir, '/var/lib/formgate');
    assert.deepEqual(config.database, { dialect: 'sqlite', file: '/var/lib/formgate/formgate.db' });
  });

  it('recognises PostgreSQL and SQLite database URLs', () => {
    for (const url of ['postgres://formgate:pw@db.internal:5432/formgate', 'postgresql://localhost/formgate?sslmode=require']) {
      assert.deepEqual(buildConfig({ databaseUrl: url }).database, { dialect: 'postgres', url });
    }
    assert.deepEqual(buildConfig({ databaseUrl: 'sqlite:./data/formgate.db' }).database, { dialect: 'sqlite', file: './data/formgate.db' });
    assert.deepEqual(buildConfig({ databaseUrl: 'sqlite:/srv/formgate.db' }).database, { dialect: 'sqlite', file: '/srv/formgate.db' });
    assert.deepEqual(buildConfig({ databaseUrl: 'sqlite:///srv/formgate.db' }).database, { dialect: 'sqlite', file: '/srv/formgate.db' });
    assert.deepEqual(buildConfig({ databaseUrl: 'sqlite::memory:' }).database, { dialect: 'sqlite', file: ':memory:' });
  });

  it('refuses a database URL it cannot use, naming FORMGATE_DATABASE_URL', () => {
    for (const databaseUrl of ['mysql://localhost/formgate', 'formgate.db', 'sqlite:', 'http://db/']) {
      assertConfigError({ databaseUrl }, 'FORMGATE_DATABASE_URL');
    }
  });

  it('takes host and ports, and derives the addresses from them', () => {
    const config = buildConfig({ host: '10.1.2.3', port: '9000', submitPort: '9001' });
    assert.equal(config.port, 9000);
    assert.equal(config.submitPort, 9001);
    assert.equal(config.baseUrl, 'http://10.1.2.3:9000/public/v1');
    assert.equal(config.submitUrl, 'http://10.1.2.3:9001');
    const anyHost = buildConfig({ host: '0.0.0.0' });
    assert.equal(anyHost.publicUrl, 'http://localhost:8080', 'a wildcard host is not an address to print');
    const v6 = buildConfig({ host: '::1', port: '0' });
    assert.equal(v6.port, 0, 'port 0: any free port');
    assert.equal(v6.submitUrl, 'http://[::1]:8081');
  });

  it('uses FORMGATE_PUBLIC_URL and FORMGATE_SUBMIT_URL as given, without a trailing slash', () => {
    const config = buildConfig({ publicUrl: 'https://forms.example.com/', submitUrl: 'https://submit.example.com/f/' });
    assert.equal(config.publicUrl, 'https://forms.example.com');
    assert.equal(config.baseUrl, 'https://forms.example.com/public/v1');
    assert.equal(config.submitUrl, 'https://submit.example.com/f');
    assertConfigError({ publicUrl: 'forms.example.com' }, 'FORMGATE_PUBLIC_URL');
    assertConfigError({ submitUrl: 'ftp://submit.example.com' }, 'FORMGATE_SUBMIT_URL');
  });

  it('refuses a bad port, naming the variable', () => {
    for (const port of ['abc', '65536', '-1', '80.5', '99999']) {
      assertConfigError({ port }, 'FORMGATE_PORT');
      assertConfigError({ submitPort: port }, 'FORMGATE_SUBMIT_PORT');
    }
    assert.equal(buildConfig({ port: '65535' }).port, 65535);
  });

  it('refuses port values that are not plain decimal numbers (blank, hex, exponent, sign)', () => {
    // Number() reads " " as 0 and "0x1f90" as 8080; a typo must not silently pick a random or other port.
    const accepted = [' ', '0x1f90', '8e3', '+80'].filter((port) => {
      try {
        buildConfig({ port });
        return true;
      } catch (error) {
        assert.ok(error instanceof ConfigError && error.message.includes('FORMGATE_PORT'), String(error));
        return false;
      }
    });
    assert.deepEqual(accepted, [], 'every one is refused');
  });

  it('refuses a secret shorter than 32 characters, naming FORMGATE_SECRET', () => {
    assertConfigError({ secret: 'x'.repeat(31) }, 'FORMGATE_SECRET');
    assert.equal(buildConfig({ secret: 'x'.repeat(32) }).secret, 'x'.repeat(32));
  });

  it('refuses a bad rate limit, naming the variable', () => {
    assertConfigError({ rateLimitApi: '60 per minute' }, 'FORMGATE_RATE_LIMIT_API');
    assertConfigError({ rateLimitSubmit: '0/1m' }, 'FORMGATE_RATE_LIMIT_SUBMIT');
    const config = buildConfig({ rateLimitApi: 'off', rateLimitSubmit: '10/30s' });
    assert.equal(config.rateLimitApi, null);
    assert.deepEqual(config.rateLimitSubmit, { max: 10, windowMs: 30_000 });
    // issue 38: exports and erasures per account, 60 an hour unless set
    assert.deepEqual(buildConfig({}).rateLimitExports, { max: 60, windowMs: 3_600_000 });
    assert.equal(buildConfig({ rateLimitExports: 'off' }).rateLimitExports, null);
    assertConfigError({ rateLimitExports: '60 an hour' }, 'FORMGATE_RATE_LIMIT_EXPORTS');
  });

  it('reads the flags as true or false and refuses anything else', () => {
    for (const value of ['0', 'false', 'No', 'off']) assert.equal(buildConfig({ allowPrivateWebhooks: value }).allowPrivateWebhooks, false, value);
    assertConfigError({ allowPrivateWebhooks: '2' }, 'FORMGATE_ALLOW_PRIVATE_WEBHOOKS');
  });

  it('reads FORMGATE_TRUST_PROXY as false, true (one hop), a number of hops or a list of proxies', () => {
    for (const value of ['0', 'false', 'No', 'off']) assert.deepEqual(buildConfig({ trustProxy: value }).trustProxy, { hops: 0 }, value);
    for (const value of ['1', 'true', 'YES', 'on']) assert.deepEqual(buildConfig({ trustProxy: value }).trustProxy, { hops: 1 }, value);
    assert.deepEqual(buildConfig({ trustProxy: ' 2 ' }).trustProxy, { hops: 2 });
    assert.deepEqual(buildConfig({ trustProxy: '10.0.0.0/8, 192.0.2.1,::1, fd00::/8, loopback' }).trustProxy, {
      addresses: ['10.0.0.0/8', '192.0.2.1', '::1', 'fd00::/8', 'loopback'],
    });
  });

  it('refuses a FORMGATE_TRUST_PROXY that names no proxy clearly, at start', () => {
    for (const value of ['maybe', '17', '10.0.0.0/0', '10.0.0.0/33', '::/0', '10.0.0.1,', '10.0.0.1, example.com', '0x7f.1', '10.0.0.0/8/8', '-1', '1.5']) {
      assertConfigError({ trustProxy: value }, 'FORMGATE_TRUST_PROXY');
    }
    assert.throws(() => buildConfig({ trustProxy: 'proxy.internal' }), /"proxy\.internal" is not an IP address or CIDR/);
    assert.throws(() => buildConfig({ trustProxy: '17' }), /17 hops is more than any real chain of proxies/);
    assert.throws(() => buildConfig({ trustProxy: '::/0' }), /"::\/0" would trust every client/);
  });

  it('reads FORMGATE_SPAMD_URL as spamd://host:port or host:port, port 783 by default', () => {
    assert.deepEqual(buildConfig({ spamdUrl: 'spamd://127.0.0.1:783' }).spamd, { host: '127.0.0.1', port: 783 });
    assert.deepEqual(buildConfig({ spamdUrl: 'spamd://spamassassin.internal' }).spamd, { host: 'spamassassin.internal', port: 783 });
    assert.deepEqual(buildConfig({ spamdUrl: '10.0.0.5:7830' }).spamd, { host: '10.0.0.5', port: 7830 });
    assert.deepEqual(buildConfig({ spamdUrl: 'spam_assassin' }).spamd, { host: 'spam_assassin', port: 783 }, 'a compose service name');
    assert.deepEqual(buildConfig({ spamdUrl: '[::1]:783' }).spamd, { host: '::1', port: 783 });
    assert.deepEqual(buildConfig({ spamdUrl: ' spamd://[fd00::5] ' }).spamd, { host: 'fd00::5', port: 783 });
  });

  it('refuses a spamd address it cannot use, naming FORMGATE_SPAMD_URL', () => {
    for (const spamdUrl of [
      'http://127.0.0.1:783',
      'spamd://127.0.0.1:0',
      '127.0.0.1:65536',
      'localhost:spamd',
      'spamd://user:pw@host:783',
      'spamd://host:783/path',
      'spamd://host:783?x=1',
      'spamd://',
      'spamd:host',
      '::1',
      'spam d:783',
      '-host:783',
      'unix:/run/spamd.sock',
    ]) {
      assertConfigError({ spamdUrl }, 'FORMGATE_SPAMD_URL');
    }
  });

  it('prefixes Redis keys with formgate: unless FORMGATE_REDIS_PREFIX says otherwise', () => {
    assert.equal(buildConfig({}).redisPrefix, 'formgate:');
    assert.equal(buildConfig({ redisPrefix: 'shop-eu:' }).redisPrefix, 'shop-eu:');
    for (const redisPrefix of ['with space:', 'tab\t', 'x'.repeat(65), 'é:']) assertConfigError({ redisPrefix }, 'FORMGATE_REDIS_PREFIX');
  });
});

describe('parseRateLimit', () => {
  const VARIABLE = 'FORMGATE_RATE_LIMIT_API';

  it('parses N/window in seconds, minutes and hours', () => {
    assert.deepEqual(parseRateLimit('60/1m', VARIABLE), { max: 60, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit('10/30s', VARIABLE), { max: 10, windowMs: 30_000 });
    assert.deepEqual(parseRateLimit('1000/1h', VARIABLE), { max: 1000, windowMs: 3_600_000 });
    assert.deepEqual(parseRateLimit('5/15m', VARIABLE), { max: 5, windowMs: 900_000 });
    assert.deepEqual(parseRateLimit(' 60 / 1m ', VARIABLE), { max: 60, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit('60/m', VARIABLE), { max: 60, windowMs: 60_000 }, 'a window count of one may be left out');
  });

  it('reads "off" in any case as no limit', () => {
    for (const value of ['off', 'OFF', ' Off ']) assert.equal(parseRateLimit(value, VARIABLE), null, value);
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['', '60', '/1m', '60/', '60/1d', '60/1', '0/1m', '60/0s', '-1/1m', '1.5/1m', 'sixty/1m', '60/1m/2', 'none', '60/1min']) {
      assert.throws(
        () => parseRateLimit(value, VARIABLE),
        (error: unknown) => error instanceof ConfigError && error.message.includes(VARIABLE),
        JSON.stringify(value),
      );
    }
  });
});

describe('readEnv', () => {
  it('maps every FORMGATE_* variable and drops empty ones', () => {
    const raw = readEnv(
      {
        FORMGATE_DATABASE_URL: 'postgres://db/formgate',
        FORMGATE_PORT: '9000',
        FORMGATE_SUBMIT_PORT: '',
        FORMGATE_RATE_LIMIT_SUBMIT: 'off',
        FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
        FORMGATE_SPAMD_URL: 'spamd://127.0.0.1:783',
        PORT: '1234',
      },
      false,
    );
    assert.deepEqual(raw, {
      databaseUrl: 'postgres://db/formgate',
      port: '9000',
      rateLimitSubmit: 'off',
      allowPrivateWebhooks: 'true',
      spamdUrl: 'spamd://127.0.0.1:783',
    });
  });
});

describe('buildConfig: FORMGATE_DELIVERY_RETENTION_DAYS', () => {
  it('keeps delivery records 30 days by default, N days when set, forever with 0 or off', () => {
    assert.equal(buildConfig({}).deliveryRetentionMs, 30 * 86_400_000);
    assert.equal(buildConfig({ deliveryRetentionDays: ' 90 ' }).deliveryRetentionMs, 90 * 86_400_000);
    assert.equal(buildConfig({ deliveryRetentionDays: '0' }).deliveryRetentionMs, null);
    assert.equal(buildConfig({ deliveryRetentionDays: 'OFF' }).deliveryRetentionMs, null);
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['30d', '-1', 'forever', '1.5', '']) assertConfigError({ deliveryRetentionDays: value }, 'FORMGATE_DELIVERY_RETENTION_DAYS');
  });
});
