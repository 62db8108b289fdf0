// Issue 38, item 16: what a hosting instance's tenants read of a delivery's error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliveryErrorForMembers, PRIVATE_TARGET_FOR_TENANTS } from '../../src/domain/delivery-error.js';
import { isPublicAddress } from '../../src/net/public-address.js';

const forHosting = (error: string | null) => deliveryErrorForMembers(error, 'hosting', isPublicAddress);

describe('deliveryErrorForMembers', () => {
  it('says only that a refused target is private, keeping the channel’s name', () => {
    const refused =
      'refused: 127.0.0.1 is a loopback address, not a public one (vm resolves to 127.0.0.1); to call a service on your own network, allow it on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW';
    assert.equal(forHosting(refused), PRIVATE_TARGET_FOR_TENANTS);
    assert.equal(forHosting(`Slack: ${refused}`), `Slack: ${PRIVATE_TARGET_FOR_TENANTS}`);
    assert.equal(forHosting('refused: vm.localhost is a localhost name, which always means a loopback address'), PRIVATE_TARGET_FOR_TENANTS);
  });

  it('says only that the instance’s mail server failed, without its host or words', () => {
    assert.equal(
      forHosting("SMTP: the instance's mail server did not take the message: getaddrinfo ENOTFOUND smtp.internal.corp"),
      "SMTP: the instance's mail server did not take the message (the administrator's logs say why)",
    );
  });

  it('hides non-public addresses anywhere else, and keeps public ones, times and ordinary words', () => {
    assert.equal(
      forHosting('could not call hook.example: connect ECONNREFUSED 10.1.2.3:443'),
      'could not call hook.example: connect ECONNREFUSED a private address:443',
    );
    assert.equal(
      forHosting('could not reach [fd00::5]:80: connect ETIMEDOUT fd00::5'),
      'could not reach [a private address]:80: connect ETIMEDOUT a private address',
    );
    assert.equal(
      forHosting('could not call hook.example: connect ECONNREFUSED 93.184.216.34:443'),
      'could not call hook.example: connect ECONNREFUSED 93.184.216.34:443',
    );
    assert.equal(forHosting('SMTP: 550 5.1.1 <ada@example.com>: user unknown at 09:12:03'), 'SMTP: 550 5.1.1 <ada@example.com>: user unknown at 09:12:03');
    assert.equal(forHosting(null), null);
  });

  it('shows a team instance’s members what the admin reads', () => {
    const refused = 'refused: 127.0.0.1 is a loopback address, not a public one (vm resolves to 127.0.0.1)';
    assert.equal(deliveryErrorForMembers(refused, 'team', isPublicAddress), refused);
  });
});
