import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildConfig } from '../../src/config/config.js';
import { outboxDir } from '../../src/mail/transport.js';

describe('outboxDir: where mail goes without SMTP', () => {
  it('is beside the SQLite database, wherever FORMGATE_DATA_DIR points', () => {
    const config = buildConfig({ databaseUrl: 'sqlite:/var/lib/formgate/formgate.db', dataDir: '/srv/elsewhere' });
    assert.equal(outboxDir(config), '/var/lib/formgate/outbox');
  });

  it('is data/outbox by default: the default database is data/formgate.db', () => {
    assert.equal(outboxDir(buildConfig({})), path.resolve('data', 'outbox'));
  });

  it('is under FORMGATE_DATA_DIR on PostgreSQL, and for an in-memory SQLite database', () => {
    assert.equal(outboxDir(buildConfig({ databaseUrl: 'postgres://localhost/formgate', dataDir: '/srv/formgate' })), '/srv/formgate/outbox');
    assert.equal(outboxDir(buildConfig({ databaseUrl: 'sqlite::memory:', dataDir: '/srv/formgate' })), '/srv/formgate/outbox');
  });
});
