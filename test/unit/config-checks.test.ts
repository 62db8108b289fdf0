import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConfig, ConfigError } from '../../src/config/config.js';
import type { RawEnv } from '../../src/config/env.js';
import { closestName, editDistance, knownVariables, refuseMisspeltVariables, unknownVariableWarnings } from '../../src/config/unknown-variables.js';
import { Keyring } from '../../src/keyring.js';

function refused(raw: RawEnv, variable: string, says?: RegExp): void {
  assert.throws(
    () => buildConfig(raw),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
      assert.ok(error.message.includes(variable), `the message names ${variable}: ${error.message}`);
      if (says) assert.match(error.message, says);
      return true;
    },
    JSON.stringify(raw),
  );
}

describe('buildConfig: every value is checked at start', () => {
  it('takes pino’s level names and silent, and refuses anything else', () => {
    assert.equal(buildConfig({}).logLevel, 'info');
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) assert.equal(buildConfig({ logLevel: level }).logLevel, level);
    assert.equal(buildConfig({ logLevel: ' WARN ' }).logLevel, 'warn');
    for (const level of ['verbose', 'warning', '30', '']) if (level) refused({ logLevel: level }, 'FORMGATE_LOG_LEVEL', /fatal, error, warn/);
  });

  it('takes json or pretty as the log format (auto when unset)', () => {
    assert.equal(buildConfig({}).logFormat, 'auto');
    assert.equal(buildConfig({ logFormat: 'Pretty' }).logFormat, 'pretty');
    assert.equal(buildConfig({ logFormat: 'json' }).logFormat, 'json');
    refused({ logFormat: 'text' }, 'FORMGATE_LOG_FORMAT');
  });

  it('takes redis:// and rediss:// URLs only', () => {
    assert.equal(buildConfig({ redisUrl: 'redis://127.0.0.1:6379/2' }).redisUrl, 'redis://127.0.0.1:6379/2');
    assert.equal(buildConfig({ redisUrl: 'rediss://:pw@cache.example.com' }).redisUrl, 'rediss://:pw@cache.example.com');
    for (const url of ['127.0.0.1:6379', 'http://127.0.0.1:6379', 'redis://', 'not a url'])
      refused({ redisUrl: url }, 'FORMGATE_REDIS_URL', /redis:\/\/127\.0\.0\.1:6379/);
  });

  it('takes smtp:// and smtps:// URLs only', () => {
    assert.equal(buildConfig({ smtpUrl: 'smtps://user:pw@mail.example.com:465' }).smtpUrl, 'smtps://user:pw@mail.example.com:465');
    for (const url of ['mail.example.com:587', 'https://mail.example.com', 'smtp://']) refused({ smtpUrl: url }, 'FORMGATE_SMTP_URL');
  });

  it('takes one sender address, with or without a display name', () => {
    assert.equal(buildConfig({}).mailFrom, 'Formgate <forms@localhost>');
    for (const from of ['forms@example.com', 'Formgate <forms@example.com>', '"Acme, Inc." <forms@example.com>'])
      assert.equal(buildConfig({ mailFrom: from }).mailFrom, from);
    for (const from of ['forms', 'Formgate', 'a@example.com, b@example.com', '<>', 'forms@'])
      refused({ mailFrom: from }, 'FORMGATE_MAIL_FROM', /one e-mail address/);
  });

  it('takes a PostgreSQL URL only with a host', () => {
    assert.equal(buildConfig({ databaseUrl: 'postgresql://u:p@db:5432/formgate' }).database.dialect, 'postgres');
    refused({ databaseUrl: 'postgres://' }, 'FORMGATE_DATABASE_URL');
    refused({ databaseUrl: 'mysql://db/formgate' }, 'FORMGATE_DATABASE_URL');
  });

  it('refuses a host with spaces or a scheme', () => {
    assert.equal(buildConfig({ host: '0.0.0.0' }).host, '0.0.0.0');
    assert.equal(buildConfig({ host: '::' }).host, '::');
    for (const host of ['http://0.0.0.0', 'local host']) refused({ host }, 'FORMGATE_HOST');
  });

  it('refuses a public URL with a path, saying to give Formgate a host name of its own', () => {
    assert.equal(buildConfig({ publicUrl: 'https://forms.example.com/' }).publicUrl, 'https://forms.example.com');
    for (const url of ['https://example.com/forms', 'https://example.com/forms/', 'https://example.com/?a=1']) {
      refused({ publicUrl: url }, 'FORMGATE_PUBLIC_URL', /without a path, such as https:\/\/example\.com.*host name of its own/);
    }
    // every address the submit surface gives out is built from its URL: a proxy that strips the path is all it takes
    assert.equal(buildConfig({ submitUrl: 'https://example.com/f' }).submitUrl, 'https://example.com/f');
  });

  it('reads previous secrets as a comma-separated list of long enough secrets', () => {
    const old = 'x'.repeat(32);
    assert.deepEqual(buildConfig({}).secretPrevious, []);
    assert.deepEqual(buildConfig({ secretPrevious: `${old}, ${'y'.repeat(40)}` }).secretPrevious, [old, 'y'.repeat(40)]);
    refused({ secretPrevious: 'short' }, 'FORMGATE_SECRET_PREVIOUS', /32 characters/);
    refused({ secretPrevious: `${old},` }, 'FORMGATE_SECRET_PREVIOUS');
  });

  it('reads the startup wait in seconds or minutes, 0 not to wait', () => {
    assert.equal(buildConfig({}).startupWaitMs, 60_000);
    assert.equal(buildConfig({ startupWait: '0' }).startupWaitMs, 0);
    assert.equal(buildConfig({ startupWait: '90s' }).startupWaitMs, 90_000);
    assert.equal(buildConfig({ startupWait: '2m' }).startupWaitMs, 120_000);
    for (const wait of ['60', '1h', '-1s', 'soon', '61m']) refused({ startupWait: wait }, 'FORMGATE_STARTUP_WAIT');
  });
});

describe('unknown FORMGATE_* variables', () => {
  it('counts a swap of neighbours as one edit', () => {
    assert.equal(editDistance('URL', 'URI'), 1);
    assert.equal(editDistance('PROT', 'PORT'), 1);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });

  const SET = {
    FORMGATE_SMTP_URI: 'smtp://x',
    FORMGATE_PROT: '80',
    FORMGATE_LOGLEVEL: 'debug',
    FORMGATE_SECRET_PREVOIUS: 'x',
    FORMGATE_DATABSE_URL: 'postgres://db/formgate',
    FORMGATE_SMTP_URL_TLS: 'on',
    FORMGATE_SOMETHING_ELSE_ENTIRELY: '1',
    FORMGATE_PORT: '8080',
    FORMGATE_METRICS: 'on',
    FORMGATE_TEST_DB: 'sqlite',
    FORMGATE_NODE_TOOLCHAIN: 'off',
    OTHER_SMTP_URI: 'x',
  };

  it('refuses every set variable nothing reads that is one or two edits from one it reads, naming it', () => {
    assert.throws(
      () => refuseMisspeltVariables(SET),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(
          error.message,
          'FORMGATE_DATABSE_URL is not a variable Formgate reads: did you mean FORMGATE_DATABASE_URL?; ' +
            'FORMGATE_LOGLEVEL is not a variable Formgate reads: did you mean FORMGATE_LOG_LEVEL?; ' +
            'FORMGATE_PROT is not a variable Formgate reads: did you mean FORMGATE_PORT?; ' +
            'FORMGATE_SECRET_PREVOIUS is not a variable Formgate reads: did you mean FORMGATE_SECRET_PREVIOUS?; ' +
            'FORMGATE_SMTP_URI is not a variable Formgate reads: did you mean FORMGATE_SMTP_URL? ' +
            'Formgate does not start with a misspelt variable, since the setting it was meant for would silently take its default; correct the name or remove the variable.',
        );
        return true;
      },
    );
    assert.doesNotThrow(() => refuseMisspeltVariables({ FORMGATE_SMTP_URL_TLS: 'on', FORMGATE_PORT: '8080', FORMGATE_TEST_DB: 'sqlite' }));
  });

  it('warns of the other set variables nothing reads, with the closest known name when there is one', () => {
    assert.deepEqual(unknownVariableWarnings(SET), [
      'FORMGATE_SMTP_URL_TLS is not a variable Formgate reads, so it has no effect: did you mean FORMGATE_SMTP_URL?',
      'FORMGATE_SOMETHING_ELSE_ENTIRELY is not a variable Formgate reads, so it has no effect',
    ]);
  });

  it('knows the server’s variables and those read elsewhere', () => {
    const known = knownVariables();
    for (const name of [
      'FORMGATE_SMTP_URL',
      'FORMGATE_SECRET_PREVIOUS',
      'FORMGATE_STARTUP_WAIT',
      'FORMGATE_LOG_FORMAT',
      'FORMGATE_METRICS',
      'FORMGATE_NODE_CACHE',
    ]) {
      assert.ok(known.includes(name), name);
    }
    assert.equal(closestName('FORMGATE_ZZZZZZZZZZZZ', known), null);
  });
});

describe('Keyring', () => {
  const A = 'a'.repeat(32);
  const B = 'b'.repeat(32);

  it('signs with the current secret and verifies with the current and previous ones', () => {
    const rotated = new Keyring(B, [A]);
    const old = new Keyring(A).sign('message');
    assert.ok(rotated.verify('message', old));
    assert.ok(rotated.verify('message', rotated.sign('message')));
    assert.equal(rotated.sign('message'), new Keyring(B).sign('message'), 'new signatures are the current secret’s');
    assert.ok(!new Keyring(B).verify('message', old), 'the old signature without the previous secret');
    assert.ok(!rotated.verify('another message', old));
    assert.ok(!rotated.verify('message', old.slice(0, -1)));
  });

  it('derives keys per purpose, keeping the rotation', () => {
    const derived = new Keyring(B, [A, B]).derive('cookies');
    assert.equal(derived.all.length, 2, 'the current secret listed as previous too counts once');
    assert.equal(derived.previous[0], new Keyring(A).derive('cookies').current);
    assert.notEqual(derived.current, new Keyring(B).derive('other').current);
  });
});

describe('FORMGATE_DRAIN_WINDOW', () => {
  it('is 3 s by default, takes seconds, milliseconds or 0, up to 60 s', () => {
    assert.equal(buildConfig({}).drainWindowMs, 3_000);
    assert.equal(buildConfig({ drainWindow: '5s' }).drainWindowMs, 5_000);
    assert.equal(buildConfig({ drainWindow: '1500ms' }).drainWindowMs, 1_500);
    assert.equal(buildConfig({ drainWindow: '0' }).drainWindowMs, 0);
    assert.equal(buildConfig({ drainWindow: '60s' }).drainWindowMs, 60_000);
  });

  it('refuses anything else, naming the variable', () => {
    for (const drainWindow of ['61s', '5', '3m', 'soon', '-1s', '2.5s']) refused({ drainWindow }, 'FORMGATE_DRAIN_WINDOW', /up to 60s/);
  });
});
