import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { buildConfig, type TrustProxy } from '../../src/config/config.js';
import { visitorKey } from '../../src/intake/rate-limit.js';
import { clientIp, proxyTrustWarning } from '../../src/net/client-address.js';

const requestFrom = (remoteAddress: string, forwardedFor?: string | string[]) =>
  ({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

const OFF: TrustProxy = { hops: 0 };
const ONE_HOP: TrustProxy = { hops: 1 };
const trust = (value: string) => buildConfig({ trustProxy: value }).trustProxy;

describe('clientIp', () => {
  it('is the socket peer, with IPv4-mapped IPv6 shown as IPv4', () => {
    assert.equal(clientIp(requestFrom('203.0.113.7'), OFF), '203.0.113.7');
    assert.equal(clientIp(requestFrom('::ffff:203.0.113.7'), OFF), '203.0.113.7');
    assert.equal(clientIp(requestFrom('2001:db8::1'), OFF), '2001:db8::1');
    assert.equal(clientIp(requestFrom('2001:DB8:0:0::1'), OFF), '2001:db8::1');
  });

  it('ignores X-Forwarded-For unless a proxy is trusted', () => {
    assert.equal(clientIp(requestFrom('10.0.0.1', '198.51.100.9'), OFF), '10.0.0.1');
    assert.equal(clientIp(requestFrom('10.0.0.1', '198.51.100.9'), trust('false')), '10.0.0.1');
  });

  it('behind one hop takes the address the proxy appended, never the left-most one the client wrote', () => {
    // nginx's $proxy_add_x_forwarded_for: what the client sent, then the address nginx saw
    assert.equal(clientIp(requestFrom('127.0.0.1', '6.6.6.6, 198.51.100.9'), ONE_HOP), '198.51.100.9');
    assert.equal(clientIp(requestFrom('127.0.0.1', '6.6.6.6,7.7.7.7 ,  198.51.100.9'), ONE_HOP), '198.51.100.9');
    assert.equal(clientIp(requestFrom('127.0.0.1', '198.51.100.9'), trust('true')), '198.51.100.9');
    // a header sent twice arrives joined by Node: the proxy's own line is still the right-most
    assert.equal(clientIp(requestFrom('127.0.0.1', '6.6.6.6, 198.51.100.9'), trust('1')), '198.51.100.9');
    // no header (a request that did not come through the proxy, or a test post made in process): the peer
    assert.equal(clientIp(requestFrom('198.51.100.9'), ONE_HOP), '198.51.100.9');
  });

  it('behind a number of hops counts that many from the right', () => {
    const header = '6.6.6.6, 198.51.100.9, 10.0.0.2';
    assert.equal(clientIp(requestFrom('10.0.0.1', header), trust('2')), '198.51.100.9');
    assert.equal(clientIp(requestFrom('10.0.0.1', header), trust('1')), '10.0.0.2');
    // more hops than addresses: the left-most is all there is
    assert.equal(clientIp(requestFrom('10.0.0.1', '198.51.100.9'), trust('3')), '198.51.100.9');
  });

  it('behind a list of proxies walks left past each trusted address and stops at the first other one', () => {
    const proxies = trust('10.0.0.0/8, 192.0.2.1');
    assert.equal(clientIp(requestFrom('10.0.0.1', '6.6.6.6, 198.51.100.9, 192.0.2.1, 10.1.2.3'), proxies), '198.51.100.9');
    // a peer that is not a listed proxy is the client, whatever it wrote
    assert.equal(clientIp(requestFrom('203.0.113.5', '6.6.6.6'), proxies), '203.0.113.5');
    // IPv4 proxies match their IPv4-mapped form, as a server listening on :: sees them
    assert.equal(clientIp(requestFrom('::ffff:10.0.0.1', '6.6.6.6, 198.51.100.9'), proxies), '198.51.100.9');
    assert.equal(clientIp(requestFrom('::ffff:10.0.0.1', '::ffff:198.51.100.9'), proxies), '198.51.100.9');
  });

  it('works with IPv6 proxies and clients, and the named ranges', () => {
    const proxies = trust('fd00::/8, ::1');
    assert.equal(clientIp(requestFrom('::1', '2001:db8::66, 2001:DB8::9, fd00::2'), proxies), '2001:db8::9');
    assert.equal(clientIp(requestFrom('::1', '6.6.6.6, 2001:db8::9'), trust('loopback')), '2001:db8::9');
    assert.equal(clientIp(requestFrom('192.168.1.2', '6.6.6.6, 198.51.100.9'), trust('uniquelocal')), '198.51.100.9');
  });
});

describe('visitorKey', () => {
  it('is the address for IPv4 and the /64 for IPv6', () => {
    assert.equal(visitorKey('203.0.113.7'), '203.0.113.7');
    assert.equal(visitorKey('2001:db8:1:2::1'), visitorKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    assert.notEqual(visitorKey('2001:db8:1:2::1'), visitorKey('2001:db8:1:3::1'));
    assert.equal(visitorKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  });

  it('counts each IPv4-mapped client as its IPv4 address, not as one shared /64', () => {
    assert.equal(visitorKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.notEqual(visitorKey('::ffff:203.0.113.7'), visitorKey('::ffff:203.0.113.8'));
  });
});

describe('proxyTrustWarning', () => {
  it('warns when a number of hops is trusted and Formgate listens beyond loopback', () => {
    assert.match(proxyTrustWarning(ONE_HOP, '0.0.0.0') ?? '', /trusts the nearest proxy whatever its address, and Formgate listens on 0\.0\.0\.0/);
    assert.match(proxyTrustWarning(trust('2'), '::') ?? '', /nearest 2 proxies whatever their addresses/);
    assert.match(proxyTrustWarning(ONE_HOP, '10.0.0.5') ?? '', /listens on 10\.0\.0\.5/);
  });

  it('is quiet on loopback, with no proxy, and with a list of proxies', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) assert.equal(proxyTrustWarning(ONE_HOP, host), null, host);
    assert.equal(proxyTrustWarning(OFF, '0.0.0.0'), null);
    assert.equal(proxyTrustWarning(trust('10.0.0.0/8'), '0.0.0.0'), null);
  });
});
