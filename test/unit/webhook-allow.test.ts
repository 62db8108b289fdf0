import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connectProblem, parseWebhookAllowList, webhookUrlProblem } from '../../src/net/public-address.js';
import { postJsonSafely } from '../../src/net/safe-http.js';
import { buildConfig } from '../../src/config/config.js';

const allow = (text: string) => {
  const { allow, problems } = parseWebhookAllowList(text);
  assert.deepEqual(problems, []);
  return allow;
};

describe('webhooks to the owner’s own network: the allow list', () => {
  it('reads CIDRs of both families, single addresses and host names; refuses anything else with a clear reason', () => {
    const list = allow('192.168.1.0/24, fd00::/8\n10.0.0.7 n8n.lan. [fd12::1] Home-Assistant.local');
    assert.deepEqual(
      list.networks.map((n) => n.text),
      ['192.168.1.0/24', 'fd00::/8', '10.0.0.7', '[fd12::1]'],
    );
    assert.deepEqual(list.hosts, ['n8n.lan', 'home-assistant.local']);
    assert.deepEqual(parseWebhookAllowList('10.0.0.0/33 fd00::/129 300.1.1.1/8 10.0.0.0/x a_b..c n8n.lan:5678').problems, [
      '"10.0.0.0/33": the prefix length must be 0 to 32',
      '"fd00::/129": the prefix length must be 0 to 128',
      '"300.1.1.1/8": 300.1.1.1 is not an IPv4 or IPv6 address',
      '"10.0.0.0/x": the prefix length must be 0 to 32',
      '"a_b..c" is neither a network (192.168.1.0/24, fd00::/8), an address nor a host name',
      '"n8n.lan:5678" is neither a network (192.168.1.0/24, fd00::/8), an address nor a host name',
    ]);
    assert.throws(() => buildConfig({ webhookAllow: '192.168.1.0/40' }), /FORMGATE_WEBHOOK_ALLOW: "192.168.1.0\/40": the prefix length must be 0 to 32/);
    assert.equal(buildConfig({ webhookAllow: '192.168.1.0/24,n8n.lan' }).webhookAllow.hosts[0], 'n8n.lan');
  });

  it('at write time: a listed network or host passes; the refusal of anything else names where to allow it', () => {
    const list = allow('192.168.1.0/24 n8n.lan fd00::/8');
    assert.equal(webhookUrlProblem('http://192.168.1.20:5678/webhook', false, list), null);
    assert.equal(webhookUrlProblem('http://[fd00::5]/hook', false, list), null);
    assert.equal(webhookUrlProblem('http://n8n.lan:5678/webhook', false, list), null);
    assert.match(
      webhookUrlProblem('http://192.168.2.20/x', false, list) ?? '',
      /non-public address; to call a service on your own network, allow it on the admin page \(Webhooks to private networks\) or in FORMGATE_WEBHOOK_ALLOW$/,
    );
    assert.match(webhookUrlProblem('http://localhost:5678/x', false, list) ?? '', /^must not point at localhost; .*FORMGATE_WEBHOOK_ALLOW$/);
    assert.notEqual(webhookUrlProblem('http://192.168.1.20/x', false), null, 'nothing allowed by default');
  });

  it('at connect time: a listed name reaches the LAN only, never loopback or link-local (DNS rebinding stays stopped)', () => {
    const list = allow('n8n.lan 192.168.1.0/24');
    assert.equal(connectProblem('10.1.2.3', 'n8n.lan', list), null);
    assert.equal(connectProblem('fd00::1', 'n8n.lan', list), null);
    assert.match(
      connectProblem('127.0.0.1', 'n8n.lan', list) ?? '',
      /^127\.0\.0\.1 is a loopback address, not a public one \(n8n\.lan resolves to 127\.0\.0\.1\)/,
    );
    assert.match(connectProblem('169.254.169.254', 'n8n.lan', list) ?? '', /link-local/);
    assert.match(connectProblem('::ffff:127.0.0.1', 'n8n.lan', list) ?? '', /loopback/);
    // an unlisted name that resolves into the listed network passes: the network is what was allowed
    assert.equal(connectProblem('192.168.1.9', 'printer.example', list), null);
    assert.equal(connectProblem('::ffff:192.168.1.9', 'printer.example', list), null);
    assert.match(connectProblem('10.1.2.3', 'evil.example', list) ?? '', /private address/);
    assert.equal(connectProblem('93.184.216.34', 'example.com', list), null);
    // loopback only when listed as a network
    assert.equal(connectProblem('127.0.0.1', 'localhost', allow('127.0.0.1/32')), null);
  });

  describe('through a real connection', () => {
    let server: Server;
    let port: number;
    before(async () => {
      server = createServer((_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('posts to a listed loopback network, and refuses a listed name that rebinds to it', async () => {
      const answer = await postJsonSafely(`http://127.0.0.1:${port}/hook`, '{}', {}, { allowPrivate: false, allow: allow('127.0.0.1/32') });
      assert.equal(answer.status, 200);
      const rebinding = async () => [{ address: '127.0.0.1', family: 4 }];
      await assert.rejects(
        postJsonSafely(`http://n8n.lan:${port}/hook`, '{}', {}, { allowPrivate: false, allow: allow('n8n.lan'), lookup: rebinding }),
        /refused: 127\.0\.0\.1 is a loopback address, not a public one \(n8n\.lan resolves to 127\.0\.0\.1\); .*Webhooks to private networks/,
      );
      await assert.rejects(postJsonSafely(`http://127.0.0.1:${port}/hook`, '{}', {}, { allowPrivate: false }), /refused/);
    });
  });
});
