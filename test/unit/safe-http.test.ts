import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { postJsonSafely, type HostLookup } from '../../src/net/safe-http.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveryErrorOf } from '../helpers/delivery-errors.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

/** The address as the host of a URL: IPv6 in brackets. */
const hostOf = (address: string) => (address.includes(':') ? `[${address}]` : address);
const familyOf = (address: string) => (address.includes(':') ? 6 : 4);

/** A resolver that knows only the names given. */
function lookupOf(table: Record<string, string[]>, calls: string[] = []): HostLookup {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: familyOf(address) }));
  };
}

const REFUSED: Array<[string, RegExp]> = [
  ['127.0.0.1', /loopback/],
  ['127.1.2.3', /loopback/],
  ['::1', /loopback/],
  ['10.0.0.1', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.254', /private/],
  ['192.168.1.1', /private/],
  ['169.254.169.254', /link-local/],
  ['fe80::1', /link-local/],
  ['fc00::1', /unique local/],
  ['fd12:3456::1', /unique local/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.254', /carrier-grade NAT/],
  ['224.0.0.1', /multicast/],
  ['ff02::1', /multicast/],
  ['240.0.0.1', /reserved/],
  ['0.0.0.0', /unspecified/],
  ['::', /unspecified/],
  ['255.255.255.255', /broadcast/],
  ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
  ['::ffff:10.0.0.1', /IPv4-mapped private/],
  ['64:ff9b::7f00:1', /NAT64/],
  ['2002:7f00:1::1', /6to4/],
];

describe('postJsonSafely', () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(() => receiver.close());

  const post = (url: string, options: Parameters<typeof postJsonSafely>[3]) => postJsonSafely(url, '{"a":1}', { 'content-type': 'application/json' }, options);

  for (const [address, kind] of REFUSED) {
    it(`refuses the literal address ${address} (${kind.source}) as permanent`, async () => {
      receiver.requests.length = 0;
      const err = await deliveryErrorOf(post(`http://${hostOf(address)}:${receiver.port}/hook`, { allowPrivate: false, lookup: lookupOf({}) }));
      assert.equal(err.permanent, true);
      assert.match(err.message, kind);
      assert.match(err.message, /refused/);
      assert.equal(receiver.requests.length, 0);
    });

    it(`refuses a host name resolving to ${address}`, async () => {
      const err = await deliveryErrorOf(
        post(`http://evil.example:${receiver.port}/hook`, { allowPrivate: false, lookup: lookupOf({ 'evil.example': [address] }) }),
      );
      assert.equal(err.permanent, true);
      assert.match(err.message, kind);
      assert.match(err.message, /evil\.example resolves to/);
    });
  }

  it('refuses a host name resolving to 127.0.0.1 without connecting', async () => {
    receiver.requests.length = 0;
    const err = await deliveryErrorOf(
      post(`http://evil.example:${receiver.port}/hook`, { allowPrivate: false, lookup: lookupOf({ 'evil.example': ['127.0.0.1'] }) }),
    );
    assert.equal(err.permanent, true);
    assert.match(
      err.message,
      /^refused: 127\.0\.0\.1 is a loopback address, not a public one \(evil\.example resolves to 127\.0\.0\.1\); to call a service on your own network, allow it/,
    );
    assert.equal(receiver.requests.length, 0);
  });

  it('refuses localhost names without asking the resolver, whatever it would answer', async () => {
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost', 'a.b.Localhost.']) {
      const calls: string[] = [];
      // a resolver that knows no such name (a hosts file without it) or gives a public address
      const lookup = lookupOf({ [host.replace(/\.$/, '')]: ['93.184.215.14'] }, calls);
      const err = await deliveryErrorOf(post(`http://${host}:${receiver.port}/hook`, { allowPrivate: false, lookup }));
      assert.equal(err.permanent, true, host);
      assert.match(err.message, /refused: .* is a localhost name/, host);
      assert.deepEqual(calls, [], host);
    }
  });

  it('refuses a host name when any one of its addresses is not public, in either order', async () => {
    for (const addresses of [
      ['93.184.215.14', '10.0.0.7'],
      ['10.0.0.7', '93.184.215.14'],
      ['2606:4700::1', '::1'],
    ]) {
      const err = await deliveryErrorOf(post('https://mixed.example/hook', { allowPrivate: false, lookup: lookupOf({ 'mixed.example': addresses }) }));
      assert.equal(err.permanent, true, addresses.join());
      assert.match(err.message, /private|loopback/, addresses.join());
    }
  });

  it('refuses schemes other than http and https and URLs with credentials, even when private addresses are allowed', async () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'gopher://example.com/', 'https://user:pw@example.com/', 'not a url']) {
      const err = await deliveryErrorOf(post(url, { allowPrivate: true, lookup: lookupOf({}) }));
      assert.equal(err.permanent, true, url);
      assert.match(err.message, /^refused: /, url);
    }
  });

  it('connects to the address it checked, keeping the host name in the Host header', async () => {
    receiver.requests.length = 0;
    const calls: string[] = [];
    const result = await postJsonSafely(
      `http://hook.example:${receiver.port}/hook?x=1`,
      '{"a":1}',
      { 'content-type': 'application/json', 'x-extra': 'yes' },
      { allowPrivate: true, lookup: lookupOf({ 'hook.example': ['127.0.0.1'] }, calls) },
    );
    assert.deepEqual(result, { status: 200, body: '', retryAfter: null });
    assert.deepEqual(calls, ['hook.example'], 'resolved once, by the injected lookup only');
    assert.equal(receiver.requests.length, 1);
    const [request] = receiver.requests;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.path, '/hook?x=1');
    assert.equal(request!.headers.host, `hook.example:${receiver.port}`);
    assert.equal(request!.headers['x-extra'], 'yes');
    assert.equal(request!.headers['content-length'], '7');
    assert.equal(request!.rawBody, '{"a":1}');
  });

  it('connects to the first checked address even when the name would resolve differently later (no rebinding window)', async () => {
    receiver.requests.length = 0;
    let answers = 0;
    // a rebinding resolver: loopback first, then an address nothing listens on
    const rebinding: HostLookup = async () => (answers++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }]);
    const result = await post(`http://rebind.example:${receiver.port}/hook`, { allowPrivate: true, lookup: rebinding });
    assert.equal(result.status, 200);
    assert.equal(answers, 1);
    assert.equal(receiver.requests.length, 1);
  });

  it('does not follow a redirect: a 3xx is just a status', async () => {
    const redirecting = await startWebhookReceiver({ status: 302 });
    try {
      const result = await post(redirecting.url, { allowPrivate: true });
      assert.equal(result.status, 302);
      assert.equal(redirecting.requests.length, 1);
    } finally {
      await redirecting.close();
    }
  });

  it('gives up on a receiver that never answers, as a transient failure', async () => {
    const hanging = await startWebhookReceiver({ hang: true });
    try {
      const err = await deliveryErrorOf(post(hanging.url, { allowPrivate: true, timeoutMs: 150 }));
      assert.equal(err.permanent, false);
      assert.match(err.message, /within 150 ms/);
      assert.equal(hanging.requests.length, 1);
    } finally {
      await hanging.close();
    }
  });

  it('gives up on a host name that is never resolved, as a transient failure', async () => {
    const never: HostLookup = () => new Promise(() => {});
    const err = await deliveryErrorOf(post('https://slow-dns.example/hook', { allowPrivate: false, timeoutMs: 50, lookup: never }));
    assert.equal(err.permanent, false);
    assert.match(err.message, /not resolved within 50 ms/);
  });

  it('stops reading an answer past the size cap', async () => {
    const endless = await startWebhookReceiver({ endless: true });
    try {
      const small = await post(endless.url, { allowPrivate: true, maxResponseBytes: 1000 });
      assert.equal(small.status, 200);
      assert.equal(small.body, 'x'.repeat(1000));
      const byDefault = await post(endless.url, { allowPrivate: true });
      assert.equal(byDefault.body.length, 64 * 1024);
    } finally {
      await endless.close();
    }
  });

  it('reports an unknown host name and a refused connection as transient', async () => {
    const unknown = await deliveryErrorOf(post('https://nowhere.example/hook', { allowPrivate: false, lookup: lookupOf({}) }));
    assert.equal(unknown.permanent, false);
    assert.match(unknown.message, /could not resolve nowhere\.example: .*ENOTFOUND/);

    const empty = await deliveryErrorOf(post('https://empty.example/hook', { allowPrivate: false, lookup: lookupOf({ 'empty.example': [] }) }));
    assert.equal(empty.permanent, false);

    const gone = await startWebhookReceiver();
    await gone.close();
    const refused = await deliveryErrorOf(post(gone.url, { allowPrivate: true }));
    assert.equal(refused.permanent, false);
    assert.match(refused.message, /could not reach 127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  // The errors of a connect() that fails before any packet leaves: the kernel has no route.
  const AT_ONCE = /^(ENETUNREACH|EHOSTUNREACH|EINVAL|EACCES|EADDRNOTAVAIL)$/;

  for (const scheme of ['http', 'https']) {
    it(`fails a connect that fails at once (no route to the address) as transient, over ${scheme}, and only that call`, async () => {
      // Multicast and broadcast addresses have no route here, so connect() fails inside the call.
      // A host name is needed: a literal address is connected on a later turn by Node.js itself.
      const answering = await startWebhookReceiver();
      try {
        const lookup = lookupOf({
          'v4.example': ['224.0.0.1'],
          'broadcast.example': ['255.255.255.255'],
          'v6.example': ['ff02::1'],
          'ok.example': ['127.0.0.1'],
        });
        const unrouted = ['v4.example', 'broadcast.example', 'v6.example'].map((host) =>
          deliveryErrorOf(post(`${scheme}://${host}/hook`, { allowPrivate: true, lookup })),
        );
        const fine = post(`http://ok.example:${answering.port}/hook`, { allowPrivate: true, lookup });
        for (const err of await Promise.all(unrouted)) {
          assert.equal(err.permanent, false, err.message);
          assert.match(err.message, /^could not reach /);
          assert.match((err.cause as NodeJS.ErrnoException).code ?? '', AT_ONCE, err.message);
        }
        assert.equal((await fine).status, 200, 'a call beside the failing ones is delivered');
      } finally {
        await answering.close();
      }
    });
  }

  it('fails a refused connection over https as transient', async () => {
    const gone = await startWebhookReceiver();
    await gone.close();
    const lookup = lookupOf({ 'closed.example': ['127.0.0.1'] });
    const refused = await deliveryErrorOf(post(`https://closed.example:${gone.port}/hook`, { allowPrivate: true, lookup }));
    assert.equal(refused.permanent, false);
    assert.match(refused.message, /ECONNREFUSED/);
  });

  it('fails a TLS handshake that cannot succeed, and an answer that breaks off, as transient', async () => {
    const plain = await startWebhookReceiver();
    try {
      const lookup = lookupOf({ 'plain.example': ['127.0.0.1'] });
      const tls = await deliveryErrorOf(post(`https://plain.example:${plain.port}/hook`, { allowPrivate: true, lookup }));
      assert.equal(tls.permanent, false);
      assert.match(tls.message, /^could not reach plain\.example/);
    } finally {
      await plain.close();
    }
    const breaking = createServer();
    breaking.on('request', (request, response) => {
      request.resume();
      response.writeHead(200, { 'content-length': '100' });
      response.write('half an answer', () => request.socket.destroy());
    });
    await new Promise<void>((resolve) => breaking.listen(0, '127.0.0.1', resolve));
    try {
      const broken = await deliveryErrorOf(post(`http://127.0.0.1:${(breaking.address() as AddressInfo).port}/hook`, { allowPrivate: true }));
      assert.equal(broken.permanent, false);
      assert.match(broken.message, /broke off/);
    } finally {
      await new Promise((resolve) => breaking.close(resolve));
    }
  });

  describe('in a network namespace with no route', () => {
    // NOTE: `unshare -n` needs root (or user namespaces); where it is missing the case is skipped.
    const namespaces = spawnSync('unshare', ['-n', 'true']).status === 0;
    const skip = namespaces ? false : 'needs `unshare -n` (util-linux, run as root): no network namespace can be made here';

    /** Runs one postJsonSafely in a fresh namespace whose only interface is a loopback that is down. */
    function postInNamespace(
      url: string,
      address: string,
    ): Promise<{ outcome: string; deliveryError: boolean; permanent: boolean; code: string; message: string }> {
      return new Promise((resolve, reject) => {
        const args = ['-n', process.execPath, '--import', 'tsx', 'test/helpers/post-safely-child.ts', url, address, 'public-only'];
        execFile('unshare', args, { cwd: PROJECT_ROOT, timeout: 20_000 }, (error, stdout, stderr) => {
          if (error) return reject(new Error(`the child ended with ${error.message}; stderr: ${stderr}`));
          resolve(JSON.parse(stdout));
        });
      });
    }

    for (const [scheme, address] of [
      ['http', '8.8.8.8'],
      ['https', '8.8.8.8'],
      ['https', '2606:4700:4700::1111'],
    ] as const) {
      it(`fails a public address (${address}, ${scheme}) that has no route as transient, without ending the process`, { skip }, async () => {
        const result = await postInNamespace(`${scheme}://public.example/hook`, address);
        assert.equal(result.outcome, 'failed');
        assert.equal(result.deliveryError, true, result.message);
        assert.equal(result.permanent, false, result.message);
        assert.match(result.code, AT_ONCE, result.message);
      });
    }
  });

  it('returns the answer body and status of a normal call', async () => {
    const answering = await startWebhookReceiver({ status: 201, body: 'created ✓' });
    try {
      assert.deepEqual(await post(answering.url, { allowPrivate: true }), { status: 201, body: 'created ✓', retryAfter: null });
    } finally {
      await answering.close();
    }
  });

  describe('kept-alive connections', () => {
    /** A bare server on `host` that counts the connections it accepts and answers as `answer` says. */
    async function countingServer(host: string, port = 0, answer: (requestNumber: number) => 'ok' | 'reset' = () => 'ok') {
      let requests = 0;
      const connections: string[] = [];
      const server: Server = createServer((request, response) => {
        requests += 1;
        if (answer(requests) === 'reset') return void request.socket.destroy();
        request.resume();
        request.on('end', () => response.end(`${host} ${connections.length}`));
      });
      server.on('connection', (socket) => connections.push(socket.remoteAddress ?? ''));
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
      return {
        server,
        port: (server.address() as AddressInfo).port,
        connections,
        requests: () => requests,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    }

    it('sends the requests to one checked address over one connection', async () => {
      const counting = await countingServer('127.0.0.1');
      try {
        const url = `http://keep.example:${counting.port}/hook`;
        const lookup = lookupOf({ 'keep.example': ['127.0.0.1'] });
        for (let i = 0; i < 3; i++) assert.equal((await post(url, { allowPrivate: true, lookup })).status, 200);
        assert.equal(counting.requests(), 3);
        assert.equal(counting.connections.length, 1);
      } finally {
        await counting.close();
      }
    });

    it('never reuses a connection for a host that now resolves to another address', async () => {
      const v4 = await countingServer('127.0.0.1');
      const v6 = await countingServer('::1', v4.port);
      try {
        let answers = 0;
        const moving: HostLookup = async () => [answers++ === 0 ? { address: '127.0.0.1', family: 4 } : { address: '::1', family: 6 }];
        const url = `http://moving.example:${v4.port}/hook`;
        assert.equal((await post(url, { allowPrivate: true, lookup: moving })).body, '127.0.0.1 1');
        assert.equal((await post(url, { allowPrivate: true, lookup: moving })).body, '::1 1', 'the second request went to the address checked for it');
      } finally {
        await v4.close();
        await v6.close();
      }
    });

    it('sends a request again on a new connection when the kept one was closed under it', async () => {
      // the second request arrives on the kept connection, which the server then drops unanswered
      const dropping = await countingServer('127.0.0.1', 0, (n) => (n === 2 ? 'reset' : 'ok'));
      try {
        const url = `http://drop.example:${dropping.port}/hook`;
        const lookup = lookupOf({ 'drop.example': ['127.0.0.1'] });
        assert.equal((await post(url, { allowPrivate: true, lookup })).status, 200);
        assert.equal((await post(url, { allowPrivate: true, lookup })).status, 200);
        assert.equal(dropping.requests(), 3);
        assert.equal(dropping.connections.length, 2);
      } finally {
        await dropping.close();
      }
    });
  });
});
