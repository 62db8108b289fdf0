// Issue 39, items 4 and 5: every request to an address an owner chose goes through one gate
// (src/net/outbound-guard.ts), which reads the allow list at each use.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { addressChecksOffWarning, OutboundGuard } from '../../src/net/outbound-guard.js';
import { parseWebhookAllowList } from '../../src/net/public-address.js';

const listOf = (text: string) => parseWebhookAllowList(text).allow;

/** Every TypeScript file under src/, relative to it. */
function sourceFiles(dir = 'src'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('the outbound guard', () => {
  it('is the only caller of the address checks and the guarded POST outside src/net', () => {
    const callers = sourceFiles()
      .filter((file) => !file.startsWith(`src${path.sep}net${path.sep}`))
      .filter((file) => /\b(postJsonSafely|webhookUrlProblem|connectProblem)\b/.test(fs.readFileSync(file, 'utf8')));
    assert.deepEqual(callers, [], 'these reach an owner’s URL without the guard, and so without the allow list');
  });

  it('reads the list at each use: a network or host listed later is allowed at once, one taken off is refused', () => {
    let text = '';
    const guard = new OutboundGuard({ allowPrivate: false, allow: () => listOf(text) });
    assert.match(guard.urlProblem('http://192.168.1.20/hook') ?? '', /non-public address/);
    assert.equal(guard.listsHostOf(new URL('http://192.168.1.20/hook')), false);
    text = '192.168.1.0/24 mattermost.lan';
    assert.equal(guard.urlProblem('http://192.168.1.20/hook'), null);
    assert.equal(guard.listsHostOf(new URL('http://192.168.1.20/hooks/abc')), true);
    assert.equal(guard.listsHostOf(new URL('https://Mattermost.LAN./hooks/abc')), true);
    assert.equal(guard.listsHostOf(new URL('http://[::ffff:192.168.1.9]/hooks/abc')), true, 'an IPv4-mapped address of a listed network');
    assert.equal(guard.listsHostOf(new URL('https://chat.example.com/hooks/abc')), false);
    assert.equal(guard.listsHostOf(new URL('http://192.168.2.1/hooks/abc')), false);
    text = '';
    assert.equal(guard.listsHostOf(new URL('https://mattermost.lan/hooks/abc')), false);
  });

  it('lists every host with the tests-only switch, and says so loudly; says nothing without it', () => {
    const open = new OutboundGuard({ allowPrivate: true });
    assert.equal(open.checksNothing, true);
    assert.equal(open.listsHostOf(new URL('http://127.0.0.1:9/x')), true);
    assert.equal(open.urlProblem('http://127.0.0.1:9/x'), null);
    assert.match(addressChecksOffWarning(true) ?? '', /^FORMGATE_ALLOW_PRIVATE_WEBHOOKS is on: webhooks and chat channels may reach ANY address/);
    assert.equal(addressChecksOffWarning(false), null);
  });
});
