import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIGNUP_LINK_LIFETIME_MS, SignupLinks } from '../../src/services/signup-links.js';

const SECRET = 'a test secret of at least 32 characters';

describe('sign-up links', () => {
  it('carry the normalised address and their expiry, and are read back while they last', () => {
    let now = 1_700_000_000_000;
    const links = new SignupLinks(SECRET, () => now);
    const token = links.issue(' Ada@Example.COM');
    assert.deepEqual(links.read(token), { email: 'ada@example.com', expiresAt: now + SIGNUP_LINK_LIFETIME_MS });
    now += SIGNUP_LINK_LIFETIME_MS - 1;
    assert.ok(links.read(token), 'still good a moment before it expires');
    now += 1;
    assert.equal(links.read(token), null, 'expired');
  });

  it('refuse any change to the token, another secret’s tokens, and every other spelling of the signature', () => {
    const links = new SignupLinks(SECRET);
    const token = links.issue('ada@example.com');
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(`${Date.now() + 60_000}.eve@example.com`).toString('base64url');
    for (let i = 0; i < mac.length; i++) {
      for (const c of ['A', 'B', 'g', '_']) {
        if (mac[i] === c) continue;
        assert.equal(links.read(`${payload}.${mac.slice(0, i)}${c}${mac.slice(i + 1)}`), null, `signature character ${i} changed to ${c}`);
      }
    }
    assert.equal(links.read(`${forged}.${mac}`), null, 'another address under the signature');
    assert.equal(links.read(new SignupLinks(`${SECRET}!`).issue('ada@example.com')), null, 'another installation’s link');
    for (const junk of ['', '.', `${payload}.`, `${payload}.${mac}=`, `${payload}!.${mac}`, `${token}.x`]) assert.equal(links.read(junk), null, junk);
  });
});
