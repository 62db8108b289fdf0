import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { visitorKey } from '../../src/intake/rate-limit.js';
import { clientIp } from '../../src/submit/client-ip.js';

const requestFrom = (remoteAddress: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientIp', () => {
  it('is the socket peer, with IPv4-mapped IPv6 shown as IPv4', () => {
    assert.equal(clientIp(requestFrom('203.0.113.7'), false), '203.0.113.7');
    assert.equal(clientIp(requestFrom('::ffff:203.0.113.7'), false), '203.0.113.7');
    assert.equal(clientIp(requestFrom('2001:db8::1'), false), '2001:db8::1');
  });

  it('ignores X-Forwarded-For unless the proxy is trusted, and then takes its first valid address', () => {
    assert.equal(clientIp(requestFrom('10.0.0.1', '198.51.100.9'), false), '10.0.0.1');
    assert.equal(clientIp(requestFrom('10.0.0.1', '198.51.100.9, 10.0.0.2'), true), '198.51.100.9');
    assert.equal(clientIp(requestFrom('10.0.0.1', 'not-an-ip'), true), '10.0.0.1');
  });
});

describe('visitorKey', () => {
  it('is the address for IPv4 and the /64 for IPv6', () => {
    assert.equal(visitorKey('203.0.113.7'), '203.0.113.7');
    assert.equal(visitorKey('2001:db8:1:2::1'), visitorKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    assert.notEqual(visitorKey('2001:db8:1:2::1'), visitorKey('2001:db8:1:3::1'));
    assert.equal(visitorKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  });
});
