import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkForm } from '../../src/services/import-checks.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

const FORM = { id: 'form1', name: 'Contact', workspaceId: 'w1' };

describe('import: a form’s fileUploads from another Formgate', () => {
  it('keeps valid limits and null (uploads off), and says whether the source showed it', () => {
    const limits = { maxFileSize: 1024, maxTotalSize: 4096, allowedTypes: ['.pdf'] };
    const kept = checkForm({ ...FORM, fileUploads: limits }, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!('problem' in kept));
    assert.deepEqual(kept.settings.fileUploads, limits);
    assert.equal(kept.showsFileUploads, true);
    const off = checkForm({ ...FORM, fileUploads: null }, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!('problem' in off));
    assert.equal(off.settings.fileUploads, null);
  });

  it('a source without it (the hosted service) gives the defaults; a bad value is dropped and named', () => {
    const absent = checkForm(FORM, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!('problem' in absent));
    assert.deepEqual(absent.settings.fileUploads, {});
    assert.equal(absent.showsFileUploads, false);
    const bad = checkForm({ ...FORM, fileUploads: { maxFileSize: -1, allowedTypes: ['pdf'] } }, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!('problem' in bad));
    assert.deepEqual(bad.settings.fileUploads, {});
    assert.equal(bad.dropped.length, 1);
    assert.match(bad.dropped[0]!, /^fileUploads .*fileUploads\.maxFileSize: must be a whole number of bytes/);
  });
});
