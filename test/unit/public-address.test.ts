import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, nonPublicAddressClass, webhookUrlProblem } from '../../src/net/public-address.js';

/** The address as the host of a URL: IPv6 in brackets. */
const urlOf = (address: string, scheme = 'http') => `${scheme}://${address.includes(':') ? `[${address}]` : address}/hook`;

const NON_PUBLIC: Record<string, string[]> = {
  'loopback v4 (127/8)': ['127.0.0.1', '127.255.255.254', '127.1.2.3'],
  'loopback v6': ['::1'],
  'private 10/8': ['10.0.0.1', '10.255.255.255'],
  'private 172.16/12': ['172.16.0.1', '172.31.255.255'],
  'private 192.168/16': ['192.168.0.1', '192.168.255.254'],
  'link-local 169.254/16 (cloud metadata)': ['169.254.169.254', '169.254.0.1'],
  'link-local fe80::/10': ['fe80::1', 'febf::ffff'],
  'CGNAT 100.64/10': ['100.64.0.1', '100.127.255.254'],
  'multicast 224/4': ['224.0.0.1', '239.255.255.250'],
  'multicast ff00::/8': ['ff02::1', 'ff0e::1'],
  'reserved 240/4': ['240.0.0.1', '254.255.255.254'],
  unspecified: ['0.0.0.0', '::', '0.1.2.3'],
  broadcast: ['255.255.255.255'],
  'IPv4-mapped IPv6 of a non-public address': ['::ffff:10.0.0.1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1'],
  'IPv4-compatible IPv6 (deprecated ::a.b.c.d)': ['::10.0.0.1', '::127.0.0.1', '::808:808', '::8.8.8.8', '::1.2.3.4'],
  'unique local fc00::/7': ['fc00::1', 'fd12:3456:789a::1'],
  'documentation ranges': ['192.0.2.1', '198.51.100.7', '203.0.113.200', '2001:db8::1'],
  'benchmarking 198.18/15': ['198.18.0.1', '198.19.255.254'],
  'IPv6 forms embedding IPv4 (6to4, Teredo, NAT64)': ['2002:a00:1::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '64:ff9b::a00:1'],
};

const PUBLIC = ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8'];
/** Just outside the private and shared ranges: public. */
const BOUNDARIES = [
  '9.255.255.255',
  '11.0.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '223.255.255.254',
];

describe('isPublicAddress', () => {
  for (const [kind, addresses] of Object.entries(NON_PUBLIC)) {
    it(`refuses ${kind}`, () => {
      for (const address of addresses) assert.equal(isPublicAddress(address), false, address);
    });
  }

  it('reads ::a.b.c.d as IPv4-compatible, not IPv4-mapped, whatever its IPv4 part', () => {
    // ipaddr.js alone reads ::1.2.3.4 as ::ffff:1.2.3.4, which passed as the public 1.2.3.4
    for (const address of ['::1.2.3.4', '::8.8.8.8', '::10.0.0.1', '::127.0.0.1'])
      assert.match(nonPublicAddressClass(address) ?? 'public', /IPv4-compatible/, address);
    assert.match(nonPublicAddressClass('::ffff:127.0.0.1') ?? 'public', /IPv4-mapped loopback/);
    assert.equal(nonPublicAddressClass('::ffff:8.8.8.8'), null);
  });

  it('accepts public unicast addresses, v4 and v6', () => {
    for (const address of PUBLIC) assert.equal(isPublicAddress(address), true, address);
  });

  it('accepts the addresses just outside the non-public ranges', () => {
    for (const address of BOUNDARIES) assert.equal(isPublicAddress(address), true, address);
  });

  it('refuses what is not an IP address', () => {
    for (const value of ['', 'example.com', 'localhost', '8.8.8.8.8', '256.1.1.1', 'fe80::1%eth0', ':::1', ' 8.8.8.8x']) {
      assert.equal(isPublicAddress(value), false, JSON.stringify(value));
    }
  });
});

describe('webhookUrlProblem', () => {
  for (const [kind, addresses] of Object.entries(NON_PUBLIC)) {
    it(`refuses a URL whose host is ${kind}, unless private webhooks are allowed`, () => {
      for (const address of addresses) {
        const url = urlOf(address);
        const problem = webhookUrlProblem(url, false);
        assert.equal(typeof problem, 'string', url);
        assert.match(problem!, /non-public|loopback|private/, url);
        assert.equal(webhookUrlProblem(url, true), null, `${url} with allowPrivate`);
      }
    });
  }

  it('accepts http and https URLs of public hosts and addresses', () => {
    for (const url of [
      'https://example.com/hooks/formgate',
      'http://example.com:8080/x?y=1#z',
      'HTTPS://Hooks.Example.COM/',
      ...PUBLIC.map((a) => urlOf(a)),
      urlOf('8.8.8.8', 'https'),
    ]) {
      assert.equal(webhookUrlProblem(url, false), null, url);
    }
  });

  it('refuses schemes other than http and https, even when private webhooks are allowed', () => {
    for (const url of [
      'ftp://example.com/file',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'gopher://example.com/',
      'data:text/plain,hi',
      'ws://example.com/',
    ]) {
      for (const allowPrivate of [false, true]) {
        assert.equal(webhookUrlProblem(url, allowPrivate), 'must use http or https', `${url} (allowPrivate ${allowPrivate})`);
      }
    }
  });

  it('refuses what is not an absolute URL', () => {
    for (const value of ['', 'example.com/hook', '/hook', '//example.com/hook', 'http://', 'http://exa mple.com/', 'http://example.com:99999/']) {
      const problem = webhookUrlProblem(value, false);
      assert.equal(typeof problem, 'string', JSON.stringify(value));
      assert.match(problem!, /absolute/, JSON.stringify(value));
    }
  });

  it('refuses credentials in the URL, even when private webhooks are allowed', () => {
    for (const url of ['https://user:secret@example.com/', 'https://user@example.com/', 'https://:secret@example.com/']) {
      for (const allowPrivate of [false, true]) {
        assert.equal(webhookUrlProblem(url, allowPrivate), 'must not carry credentials', `${url} (allowPrivate ${allowPrivate})`);
      }
    }
  });

  it('refuses localhost names, in any spelling, unless private webhooks are allowed', () => {
    for (const url of [
      'http://localhost/',
      'http://localhost:3000/hook',
      'http://LOCALHOST/',
      'http://localhost./',
      'http://foo.localhost/',
      'http://a.b.localhost./',
      'https://Foo.LocalHost/',
    ]) {
      assert.match(
        webhookUrlProblem(url, false) ?? '',
        /^must not point at localhost; .*admin page \(Webhooks to private networks\).*FORMGATE_WEBHOOK_ALLOW/,
        url,
      );
      assert.equal(webhookUrlProblem(url, true), null, `${url} with allowPrivate`);
    }
    // a name that merely contains "localhost" is an ordinary host name
    assert.equal(webhookUrlProblem('https://localhost.example.com/', false), null);
    assert.equal(webhookUrlProblem('https://notlocalhost/', false), null);
  });

  it('refuses decimal, hexadecimal, octal and shortened spellings of non-public IPv4 addresses', () => {
    const spellings = [
      'http://2130706433/', // 127.0.0.1
      'http://0x7f000001/',
      'http://0x7f.1/',
      'http://0x7f.0.0.1/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://127.0.0.1./',
      'http://167772161/', // 10.0.0.1
      'http://0xa9.0xfe.0xa9.0xfe/', // 169.254.169.254
      'http://0/', // 0.0.0.0
      'http://[::ffff:a00:1]/',
      'http://[0:0:0:0:0:ffff:7f00:1]/',
    ];
    for (const url of spellings) {
      assert.match(webhookUrlProblem(url, false) ?? '(accepted)', /non-public/, url);
      assert.equal(webhookUrlProblem(url, true), null, `${url} with allowPrivate`);
    }
    // and odd spellings of a public address are fine
    assert.equal(webhookUrlProblem('http://0x08.0x08.0x08.0x08/', false), null);
    assert.equal(webhookUrlProblem('http://134744072/', false), null);
  });
});
