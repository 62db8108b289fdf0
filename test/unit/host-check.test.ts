import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isOwnHost } from '../../src/http/host-check.js';

describe('isOwnHost', () => {
  it("takes the public URL's host name, with or without a port, in any case", () => {
    const publicUrl = 'https://forms.example.com';
    for (const host of ['forms.example.com', 'Forms.Example.COM', 'forms.example.com:443', 'forms.example.com:8443', 'forms.example.com.']) {
      assert.equal(isOwnHost(host, publicUrl), true, host);
    }
    assert.equal(isOwnHost('xn--bcher-kva.example', 'https://bücher.example'), true, 'an IDN as browsers send it');
  });

  it('takes localhost and any IP address, which no rebinding page can name', () => {
    for (const host of ['localhost', 'localhost:8080', '127.0.0.1', '127.0.0.1:1', '[::1]', '[::1]:8080', '192.0.2.7:8080', '[2001:db8::1]']) {
      assert.equal(isOwnHost(host, 'https://forms.example.com'), true, host);
    }
  });

  it('refuses every other name, and anything that is not a Host', () => {
    for (const host of [
      'rebind.example',
      'www.forms.example.com',
      'forms.example.com.rebind.example',
      'example.com',
      'localhost.rebind.example',
      'sub.localhost',
      '127.0.0.1.nip.io',
      '',
      'forms.example.com:443:1',
      'user@forms.example.com',
      'forms.example.com/path',
      '[::1',
      '::1',
    ]) {
      assert.equal(isOwnHost(host, 'https://forms.example.com'), false, host);
    }
  });

  it('without a public URL set, takes the derived one: the listening address', () => {
    assert.equal(isOwnHost('127.0.0.1:8080', 'http://127.0.0.1:8080'), true);
    assert.equal(isOwnHost('formgate.lan:8080', 'http://formgate.lan:8080'), true, 'FORMGATE_HOST given as a name');
    assert.equal(isOwnHost('rebind.example:8080', 'http://127.0.0.1:8080'), false);
  });
});
