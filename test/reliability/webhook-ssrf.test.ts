import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../../src/config/config.js';
import { openContext, type AppContext } from '../../src/context.js';
import { ProblemError } from '../../src/errors.js';
import { type TestApp, startApp } from '../helpers/app.js';
import { cliEnv, type LogLine, type ServerProcess, spawnServe } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { postJson } from '../helpers/submit.js';

// Issue 18: a webhook URL is chosen by whoever configures a form, so the delivery worker must never
// let it reach the network Formgate runs in, whatever the spelling of the address, whatever a name
// resolves to, whenever the answer changes, wherever a redirect points. A URL may pass the check
// when it is saved (a host name) and must still be refused when it is sent.
//
// How: `formgate serve` (FORMGATE_ALLOW_PRIVATE_WEBHOOKS off) runs in a network namespace of its
// own (test/helpers/in-namespace.ts) with a hosts file of ours, no route out, and these on its
// loopback: 127/8, ::1, the private, link-local, CGNAT, benchmarking and documentation addresses
// below, and one public address (RECEIVER) standing for the Internet. A canary listens on every
// address of the namespace and a receiver on RECEIVER (test/helpers/ns-stand-ins.ts): a guard that
// let any hostile URL through would land on the canary, which must receive nothing. A DNS stand-in
// preloaded into the server (test/helpers/rebinding-resolver.ts) rebinds names under .rebind.test.
// Submissions come through a second instance in this test's namespace on the same database, whose
// worker is off: the server in the namespace claims and sends every job.

const RECEIVER = '8.8.4.4';
/** Public, but not on the namespace's loopback: no route, so the connect fails at once. */
const UNROUTED_V4 = '1.1.1.1';
const UNROUTED_V6 = '2606:4700:4700::1111';
const NAMESPACE_ADDRESSES_V4 = [RECEIVER, '10.0.0.7', '172.16.0.1', '192.168.1.1', '100.64.0.1', '169.254.169.254', '198.18.0.1', '192.0.2.1'];
const NAMESPACE_ADDRESSES_V6 = ['fc00::1', 'fd12:3456::1', '2001:db8::1'];

const HOSTS = `127.0.0.1 localhost
::1 localhost
127.0.0.1 loopback.test
::1 v6loopback.test
169.254.169.254 metadata.test
10.0.0.7 private.test
100.64.0.1 cgnat.test
fc00::1 ula.test
::ffff:127.0.0.1 mapped.test
::8.8.8.8 compat.test
0.0.0.0 zero.test
${RECEIVER} mixed.test
10.0.0.7 mixed.test
${RECEIVER} mixed6.test
::1 mixed6.test
${RECEIVER} hooks.test
${UNROUTED_V4} unrouted.test
`;

type Outcome = 'refused' | 'unreachable' | 'redirect refused' | 'delivered';

interface Case {
  /** What it tries, as the report names it. */
  what: string;
  url: (ports: Ports) => string;
  outcome: Outcome;
  /** What the delivery's last error must say. */
  error?: RegExp;
}

interface Ports {
  canary: number;
  receiver: number;
}

const canaryUrl = (host: string) => (ports: Ports) => `http://${host}:${ports.canary}/hook`;
const refused = (what: string, host: string, kind: RegExp): Case => ({ what, url: canaryUrl(host), outcome: 'refused', error: kind });

/** Literal addresses and localhost names: refused already when saved, and again when sent. */
const LITERALS: Case[] = [
  refused('loopback, dotted', '127.0.0.1', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, trailing dot', '127.0.0.1.', /loopback/),
  refused('loopback, decimal', '2130706433', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, octal', '0177.0.0.1', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, octal whole', '017700000001', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, hex dotted', '0x7f.0.0.1', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, hex whole', '0x7f000001', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, short', '127.1', /127\.0\.0\.1 is a loopback address/),
  refused('loopback, other 127/8', '127.45.6.7', /loopback/),
  refused('loopback, IPv6', '[::1]', /::1 is a loopback address/),
  refused('loopback, IPv6 long', '[0:0:0:0:0:0:0:1]', /::1 is a loopback address/),
  refused('localhost', 'localhost', /loopback/),
  // a localhost name is refused without a lookup: this one is in no hosts file (a DNS server may answer anything)
  refused('LOCALHOST.', 'LOCALHOST.', /LOCALHOST\. is a localhost name/i),
  refused('a name under .localhost', 'admin.localhost', /admin\.localhost is a localhost name/),
  refused('IPv4-mapped loopback', '[::ffff:127.0.0.1]', /IPv4-mapped loopback/),
  refused('IPv4-mapped loopback, hex', '[::ffff:7f00:1]', /IPv4-mapped loopback/),
  refused('IPv4-mapped metadata', '[::ffff:169.254.169.254]', /IPv4-mapped link-local/),
  refused('IPv4-compatible loopback', '[::127.0.0.1]', /IPv4-compatible/),
  refused('IPv4-translated loopback', '[::ffff:0:127.0.0.1]', /IPv4-translated/),
  refused('NAT64 64:ff9b::/96 of loopback', '[64:ff9b::127.0.0.1]', /NAT64/),
  refused('NAT64 local-use 64:ff9b:1::/48 of 10.0.0.7', '[64:ff9b:1::a00:7]', /NAT64/),
  refused('6to4 of loopback', '[2002:7f00:1::1]', /6to4/),
  refused('Teredo of loopback', '[2001:0:4136:e378:8000:63bf:80ff:fffe]', /Teredo/),
  refused('link-local, cloud metadata', '169.254.169.254', /link-local/),
  refused('link-local IPv6', '[fe80::1]', /link-local/),
  refused('CGNAT 100.64/10', '100.64.0.1', /carrier-grade NAT/),
  refused('private 10/8', '10.0.0.7', /private/),
  refused('private 172.16/12', '172.16.0.1', /private/),
  refused('private 192.168/16', '192.168.1.1', /private/),
  refused('unique local fc00::/7', '[fc00::1]', /unique local/),
  refused('unique local fd00::/8', '[fd12:3456::1]', /unique local/),
  refused('multicast 224/4', '224.0.0.1', /multicast/),
  refused('multicast SSDP', '239.255.255.250', /multicast/),
  refused('multicast IPv6', '[ff02::1]', /multicast/),
  refused('unspecified 0.0.0.0 (connects to loopback on Linux)', '0.0.0.0', /unspecified/),
  refused('unspecified, short 0', '0', /unspecified/),
  refused('unspecified IPv6 (connects to loopback on Linux)', '[::]', /unspecified/),
  refused('reserved 240/4', '240.0.0.1', /reserved/),
  refused('broadcast', '255.255.255.255', /broadcast/),
  refused('benchmarking 198.18/15', '198.18.0.1', /reserved/),
  refused('IETF protocol assignments 192.0.0/24', '192.0.0.1', /reserved/),
  refused('documentation TEST-NET-1', '192.0.2.1', /reserved/),
  refused('documentation TEST-NET-2', '198.51.100.1', /reserved/),
  refused('documentation TEST-NET-3', '203.0.113.1', /reserved/),
  refused('documentation IPv6', '[2001:db8::1]', /reserved/),
  refused('discard-only IPv6', '[100::1]', /discard-only/),
];

/** Names the save-time check cannot judge: they pass it, and are resolved (through the hosts file) when sent. */
const NAMES: Case[] = [
  refused('name → loopback', 'loopback.test', /127\.0\.0\.1 is a loopback address.*loopback\.test resolves to 127\.0\.0\.1/),
  refused('name → IPv6 loopback', 'v6loopback.test', /::1 is a loopback address.*v6loopback\.test resolves to ::1/),
  refused('name → cloud metadata', 'metadata.test', /169\.254\.169\.254 is a link-local address/),
  refused('name → private', 'private.test', /10\.0\.0\.7 is a private address/),
  refused('name → CGNAT', 'cgnat.test', /carrier-grade NAT/),
  refused('name → unique local', 'ula.test', /unique local/),
  refused('name → IPv4-mapped loopback', 'mapped.test', /IPv4-mapped loopback/),
  refused('name → IPv4-compatible ::8.8.8.8', 'compat.test', /IPv4-compatible/),
  refused('name → 0.0.0.0', 'zero.test', /unspecified/),
  refused('name → public and private', 'mixed.test', /10\.0\.0\.7 is a private address/),
  refused('name → public and IPv6 loopback', 'mixed6.test', /::1 is a loopback address/),
];

const AT_ONCE = /ENETUNREACH|EHOSTUNREACH|EINVAL|EACCES|EADDRNOTAVAIL/;
const UNREACHABLE: Case[] = [
  { what: 'public address with no route', url: canaryUrl(UNROUTED_V4), outcome: 'unreachable', error: AT_ONCE },
  { what: 'public IPv6 address with no route', url: canaryUrl(`[${UNROUTED_V6}]`), outcome: 'unreachable', error: AT_ONCE },
  { what: 'name → public address with no route', url: canaryUrl('unrouted.test'), outcome: 'unreachable', error: AT_ONCE },
  { what: 'https, name → public address with no route', url: () => 'https://unrouted.test/hook', outcome: 'unreachable', error: AT_ONCE },
];

const redirect = (status: number, to: (ports: Ports) => string): Case => ({
  what: `${status} redirect to ${to({ canary: 0, receiver: 0 }).replace(/:0\b/, '')}`,
  url: (ports) => `http://hooks.test:${ports.receiver}/redirect/${status}?to=${encodeURIComponent(to(ports))}`,
  outcome: 'redirect refused',
  error: new RegExp(`answered ${status}: redirects are not followed`),
});
const REDIRECTS: Case[] = [
  redirect(302, canaryUrl('127.0.0.1')),
  redirect(307, (ports) => `http://169.254.169.254:${ports.canary}/latest/meta-data/`),
  redirect(303, canaryUrl('localhost')),
  redirect(301, canaryUrl('[::1]')),
  // any redirect: even to a public address it is not followed
  redirect(308, (ports) => `http://hooks.test:${ports.receiver}/ok`),
];

/** The harness can deliver: so the refusals above are the guard's doing, not a broken set-up. */
const DELIVERED: Case[] = [{ what: 'public name, delivered', url: (ports) => `http://hooks.test:${ports.receiver}/ok`, outcome: 'delivered' }];
/** Rebinding: the first answer is public (delivered there), every later one loopback. */
const REBOUND_URL = (ports: Ports) => `http://first.rebind.test:${ports.receiver}/ok`;

const namespaces = spawnSync('setpriv', ['--pdeathsig', 'SIGKILL', 'unshare', '--mount', '--net', 'true']).status === 0;
const NO_NAMESPACES = 'needs `unshare --mount --net` and `setpriv` (util-linux, as root): no namespace can be made here';
const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
const standIn = (kind: string) => (line: LogLine) => line.json?.standIn === kind;

/** The database URL as seen from a namespace with no network: PostgreSQL through its Unix socket. */
function urlInNamespace(database: TestDatabase): string {
  if (TEST_DIALECT === 'sqlite') return database.url;
  const url = new URL(database.url);
  return `postgres://${url.username}@localhost${url.pathname}?host=/var/run/postgresql`;
}

/** The shell that sets up the namespace's addresses and stand-ins, then becomes the server ("$@"). */
function namespaceSetup(): string {
  const v4 = NAMESPACE_ADDRESSES_V4.map((a) => `ip addr add ${a}/32 dev lo`);
  const v6 = NAMESPACE_ADDRESSES_V6.map((a) => `ip -6 addr add ${a}/128 dev lo`);
  // $$ is this shell's pid, which exec hands on to the server: the stand-ins exit when it does
  const standIns = `${JSON.stringify(process.execPath)} --import tsx test/helpers/ns-stand-ins.ts ${RECEIVER} $$ &`;
  return ['set -e', ...v4, ...v6, standIns, 'exec "$@"'].join('\n');
}

describe('webhooks at send time refuse every non-public address (SSRF)', { skip: !namespaces && NO_NAMESPACES }, () => {
  let database: TestDatabase;
  let app: TestApp;
  /** Saves what the save-time check refuses: a URL saved while private webhooks were allowed. */
  let lenient: AppContext;
  let server: ServerProcess;
  let ports: Ports;
  let userId: string;
  let workspaceId: string;
  const counts = { submissions: 0, refusedAtSave: 0 };

  before(async () => {
    database = await createTestDatabase();
    const hostsFile = path.join(database.dataDir, 'hosts');
    fs.writeFileSync(hostsFile, HOSTS);
    app = await startApp({}, { database });
    lenient = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir, allowPrivateWebhooks: '1' }));
    const { user, workspace } = await app.ctx.users.createUser(`ssrf-${process.pid}@example.com`);
    await app.ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    userId = user.id;
    workspaceId = workspace.id;

    const env = cliEnv(database, {
      FORMGATE_DATABASE_URL: urlInNamespace(database),
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      REBIND_FIRST_ANSWER: RECEIVER,
    });
    const server_ = ['--import', 'tsx', '--import', './test/helpers/rebinding-resolver.ts', 'src/main.ts'];
    server = spawnServe(env, [
      ...['--import', 'tsx', 'test/helpers/in-namespace.ts', hostsFile, 'no-network'],
      ...['sh', '-c', namespaceSetup(), 'sh', process.execPath, ...server_],
    ]);
    await server.waitForLine(READY, 'the server in its namespace to be ready', 30_000);
    const ready = (await server.waitForLine(standIn('ready'), 'the stand-ins to listen')).json!;
    ports = { canary: ready.canaryPort, receiver: ready.receiverPort };
  });

  after(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.waitForExit().catch(() => server.kill());
    }
    await app?.close();
    await lenient?.close();
    await database?.drop();
  });

  /** A form posting to `url`, saved through the normal check when it passes it, else as if saved while private webhooks were allowed. */
  async function formFor(url: string, name: string): Promise<{ id: string; savedBy: 'check' | 'lenient' }> {
    try {
      const form = await app.ctx.forms.createForm(userId, workspaceId, { name, webhookUrl: url });
      return { id: form.id, savedBy: 'check' };
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      counts.refusedAtSave++;
      const form = await lenient.forms.createForm(userId, workspaceId, { name, webhookUrl: url });
      return { id: form.id, savedBy: 'lenient' };
    }
  }

  async function submit(formId: string, what: string): Promise<string> {
    counts.submissions++;
    const answer = await postJson(app, formId, { message: `ssrf: ${what}` });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id;
  }

  /** The webhook job of a submission once its first try is recorded. */
  async function triedJob(submissionId: string) {
    let job: { id: string; status: string; attempts: number; lastError: string | null; leaseUntil: number | null } | undefined;
    await until(
      `the webhook of ${submissionId} to be tried`,
      async () => {
        job = await app.ctx.database.db
          .selectFrom('jobs')
          .select(['id', 'status', 'attempts', 'lastError', 'leaseUntil'])
          .where('submissionId', '=', submissionId)
          .where('kind', '=', 'webhook')
          .executeTakeFirst();
        return job !== undefined && job.attempts >= 1 && job.leaseUntil === null;
      },
      30_000,
      50,
    );
    return job!;
  }

  const hits = (kind: string) => server.lines.filter(standIn(kind)).map((line) => line.json!);

  it('refuses or fails every hostile address as a delivery, and no request reaches the canary', async () => {
    const cases = [...LITERALS, ...NAMES, ...UNREACHABLE, ...REDIRECTS, ...DELIVERED];
    // forms one after another (three processes write the database; SQLite serialises them anyway)
    const forms: { url: string; form: Awaited<ReturnType<typeof formFor>> }[] = [];
    for (const [n, c] of cases.entries()) forms.push({ url: c.url(ports), form: await formFor(c.url(ports), `ssrf ${n}`) });
    // the submissions at once: the worker meets them side by side
    const runs = await Promise.all(cases.map(async (c, n) => ({ case: c, ...c, ...forms[n]!, submissionId: await submit(forms[n]!.form.id, c.what) })));
    const failures: string[] = [];
    for (const run of runs) {
      const job = await triedJob(run.submissionId);
      // the admin's delivery log (the CLI's): every detail; a hosting instance's members read less (issue 38, item 16)
      const [delivery] = await app.ctx.deliveries.list({ formId: run.form.id, limit: 1 });
      const logged = delivery?.tries.at(-1)?.error ?? '';
      const [members] = await app.ctx.deliveries.forSubmission(run.submissionId);
      const membersRead = members?.tries.at(-1)?.error ?? '';
      const expected = { refused: 'failed', 'redirect refused': 'failed', unreachable: 'pending', delivered: 'done' }[run.outcome];
      const problems = [
        job.status !== expected && `status ${job.status}, expected ${expected}`,
        run.outcome !== 'unreachable' && job.attempts !== 1 && `${job.attempts} tries, expected 1`,
        run.error && !run.error.test(job.lastError ?? '') && `last error ${JSON.stringify(job.lastError)} does not match ${run.error}`,
        run.error && !run.error.test(logged) && `the delivery log's try says ${JSON.stringify(logged)}`,
        // no address behind a refused target, in any spelling the refusals use
        run.outcome === 'refused' &&
          /\b(127|10|169\.254|192\.168|172\.(1[6-9]|2\d|3[01]))\.\d+\.\d+|::1\b/.test(membersRead) &&
          `members read ${JSON.stringify(membersRead)}`,
      ].filter(Boolean);
      if (problems.length > 0) failures.push(`${run.what} (${run.url}): ${problems.join('; ')}`);
    }
    assert.deepEqual(failures, []);

    // names pass the save-time check (they are judged when sent); literal non-public addresses do not
    for (const run of runs.filter((r) => NAMES.includes(r.case))) assert.equal(run.form.savedBy, 'check', run.what);
    for (const run of runs.filter((r) => LITERALS.includes(r.case))) assert.equal(run.form.savedBy, 'lenient', `${run.what} passed the save-time check`);

    // each redirecting answer was asked for once, and nothing it pointed to was called (the stand-in
    // prints a line per request it answered, which may reach us just after the job was recorded)
    const publicHits = () => hits('public').map((hit) => hit.url as string);
    await until('the public stand-in to have printed every request it answered', () => publicHits().length >= REDIRECTS.length + DELIVERED.length);
    const received = publicHits();
    assert.equal(received.filter((url) => url.startsWith('/redirect/')).length, REDIRECTS.length);
    assert.equal(received.filter((url) => url === '/ok').length, DELIVERED.length, 'only the delivered case reached /ok');
    assert.deepEqual(hits('canary'), [], 'no request reached a private listener');
    assert.equal(server.child.exitCode, null, `the server is still running; stderr: ${server.stderr()}`);
  });

  it('connects to the address it checked when a name is rebound between lookups (DNS rebinding)', async () => {
    const form = await formFor(REBOUND_URL(ports), 'rebinding');
    assert.equal(form.savedBy, 'check');
    const first = await triedJob(await submit(form.id, 'rebinding, first'));
    assert.equal(first.status, 'done', `first try: ${first.lastError}`);
    // one lookup for that try: the check's answer (public) is where the connection went, had the
    // connect looked the name up again it would have got 127.0.0.1 and landed on the canary.
    // The resolver's and the receiver's lines are written before the job is recorded, but this
    // process may read the job's row before it has read them from the pipe (CI saw it): wait for
    // a line of each, then judge every line there is.
    const lookups = () => hits('resolver').filter((hit) => hit.hostname === 'first.rebind.test');
    const rebindHits = () => [...hits('public'), ...hits('canary')].filter((hit) => hit.host === `first.rebind.test:${ports.receiver}`);
    await until('the first lookup and the first delivery to be printed', () => lookups().length >= 1 && rebindHits().length >= 1);
    assert.deepEqual(
      lookups().map((hit) => hit.address),
      [RECEIVER],
    );
    assert.deepEqual(
      rebindHits().map((hit) => hit.standIn),
      ['public'],
      'delivered to the checked address, Host kept',
    );

    // the next delivery looks the name up again, gets loopback, and is refused (no kept connection is reused for it)
    const second = await triedJob(await submit(form.id, 'rebinding, second'));
    assert.equal(second.status, 'failed');
    assert.match(second.lastError ?? '', /refused: 127\.0\.0\.1 is a loopback address.*first\.rebind\.test resolves to 127\.0\.0\.1/);
    await until('the second lookup to be printed', () => lookups().length >= 2);
    assert.equal(lookups().length, 2);
    assert.deepEqual(hits('canary'), [], 'no request reached a private listener');
  });

  it('prints its figures', () => {
    const hostile = LITERALS.length + NAMES.length + UNREACHABLE.length + REDIRECTS.length + 1;
    const delivered = hits('public').filter((hit) => hit.url === '/ok').length;
    printFigures('webhook SSRF at send time', {
      requestsSent: counts.submissions,
      faultsInjected: hostile,
      submissionsAcknowledged: counts.submissions,
      deliveriesExpected: DELIVERED.length + 1,
      delivered,
      duplicated: 0,
      more: {
        'addresses and names refused when sent': LITERALS.length + NAMES.length + 1,
        'refused already when saved': counts.refusedAtSave,
        'failed at once, no route (retried)': UNREACHABLE.length,
        'redirects answered / followed': `${REDIRECTS.length} / 0`,
        'requests that reached a private listener': hits('canary').length,
      },
    });
    assert.equal(delivered, DELIVERED.length + 1);
    assert.equal(hits('canary').length, 0, 'no request reached a private listener');
    assert.equal(server.child.exitCode, null, 'the server is still running');
  });
});
