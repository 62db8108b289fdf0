import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import type { RawEnv } from '../../src/config/env.js';
import { openContext, type AppContext } from '../../src/context.js';
import { Database } from '../../src/db/database.js';
import type { Channel, Job } from '../../src/jobs/channels/channel.js';
import { EmailChannel } from '../../src/jobs/channels/email.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { enqueueJob, enqueueJobs } from '../../src/jobs/outbox.js';
import { JobWorker, type WorkerOptions } from '../../src/jobs/worker.js';
import { createMailer, mailWarning, type Mailer } from '../../src/mail/transport.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const MAIL_FROM = 'Formgate Test <forms@example.test>';
const LEASE_MS = 60_000;
const RETRY = { maxAttempts: 3, baseMs: 10_000, factor: 2, capMs: 60_000 };

/**
 * The worker's claims and records all go through withoutFsync: counting them shows when it is idle.
 * A wake schedules its claim on a timer of 0 ms, so a turn of the timers after the last write
 * settles is enough for a claim that was coming to have begun. No wall-clock wait decides it.
 */
function watchIdle(database: Database): { counted: Database; idle: () => Promise<void> } {
  let begun = 0;
  let settled = 0;
  const counted = Object.assign(Object.create(database) as Database, {
    withoutFsync: <T>(fn: (db: Database['db']) => Promise<T>) => {
      begun++;
      return database.withoutFsync(fn).finally(() => settled++);
    },
  });
  const idle = async () => {
    for (let round = 0; round < 1000; round++) {
      while (settled < begun) await new Promise((resolve) => setImmediate(resolve));
      const before = begun;
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (begun === before && settled === begun) return;
    }
    assert.fail('the worker never went idle');
  };
  return { counted, idle };
}

/** A channel whose sends wait until the test lets each go: `releases` in the order they began, `sent()` how many began. */
function gatedChannel(): { gate: Channel; releases: (() => void)[]; sent: () => number } {
  const releases: (() => void)[] = [];
  let sent = 0;
  const gate: Channel = {
    send: () => {
      sent++;
      return new Promise<void>((resolve) => releases.push(resolve));
    },
  };
  return { gate, releases, sent: () => sent };
}

/** Waits (bounded) until `sent()` reaches `n`; once idle, every claim that was coming has begun, a claim too many included: exactly `n` began. */
async function sendsReach(sent: () => number, idle: () => Promise<void>, n: number): Promise<void> {
  for (let i = 0; i < 400 && sent() < n; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await idle();
  assert.equal(sent(), n);
}

describe(`delivery worker (${TEST_DIALECT})`, () => {
  let sink: SmtpSink;
  let testDb: TestDatabase;
  let ctx: AppContext;
  let mailer: Mailer;
  let clock: number;
  const closers: (() => Promise<void> | void)[] = [];

  async function open(env: RawEnv): Promise<void> {
    testDb = await createTestDatabase();
    ctx = await openContext(testConfig(testDb, { mailFrom: MAIL_FROM, ...env }));
    mailer = createMailer(ctx.config);
  }

  /** A worker on `database` (the context's by default) whose clock is the test's `clock`. */
  function worker(options: WorkerOptions = {}, database = ctx.database, channelMailer = mailer): JobWorker {
    return new JobWorker(
      database,
      { email: new EmailChannel(channelMailer, 'example.test') },
      { now: () => clock, random: () => 1, leaseMs: LEASE_MS, retry: RETRY, ...options },
    );
  }

  const enqueueEmail = (subject: string, to = ['ann@example.com', 'bob@example.com']) =>
    enqueueJob(ctx.database.db, { kind: 'email', payload: { to, subject, text: `Body of ${subject}` }, runAt: clock });
  const jobRow = (id: string) => ctx.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attemptsOf = (id: string) =>
    ctx.database.db.selectFrom('jobAttempts').selectAll().where('jobId', '=', id).orderBy('startedAt').orderBy('finishedAt').execute();

  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await sink.close();
  });
  beforeEach(async () => {
    clock = Date.now();
    sink.messages.length = 0;
    sink.mode = 'accept';
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    mailer?.close();
    await ctx?.close();
    await testDb?.drop();
  });

  describe('with SMTP', () => {
    beforeEach(() => open({ smtpUrl: sink.url }));

    it('delivers an enqueued email through SMTP, from FORMGATE_MAIL_FROM', async () => {
      const id = await enqueueEmail('Hello');
      assert.equal(await worker().runOnce(), 1);
      assert.equal(sink.messages.length, 1);
      const [mail] = sink.messages;
      assert.deepEqual(mail!.envelopeTo, ['ann@example.com', 'bob@example.com']);
      assert.equal(mail!.envelopeFrom, 'forms@example.test');
      assert.equal(mail!.parsed.subject, 'Hello');
      assert.deepEqual(mail!.parsed.from?.value, [{ address: 'forms@example.test', name: 'Formgate Test' }]);
      assert.equal(mail!.parsed.text?.trim(), 'Body of Hello');
      const job = await jobRow(id);
      assert.equal(job.status, 'done');
      assert.equal(job.attempts, 1);
      assert.equal(job.leaseUntil, null);
      const attempts = await attemptsOf(id);
      assert.deepEqual(
        attempts.map((a) => a.outcome),
        ['ok'],
      );
      // the server's reply line is kept (smtp-server answers "250 OK: message queued")
      assert.match(attempts[0]!.response ?? '', /^250 /);
      assert.equal(attempts[0]!.statusCode, 250);
      assert.equal(attempts[0]!.writtenTo, null);
      assert.equal(await worker().runOnce(), 0, 'nothing is due any more');
    });

    it('retries a transient failure (451) after a backoff, then delivers once the server recovers', async () => {
      const id = await enqueueEmail('Later');
      sink.mode = 'transient';
      assert.equal(await worker().runOnce(), 1);
      let job = await jobRow(id);
      assert.equal(job.status, 'pending');
      assert.equal(job.attempts, 1);
      assert.equal(job.runAt, clock + RETRY.baseMs, 'full jitter with random() = 1 waits the whole first step');
      assert.equal(job.leaseUntil, null);
      assert.match(job.lastError ?? '', /451/);
      const [attempt] = await attemptsOf(id);
      assert.equal(attempt!.outcome, 'retry');
      assert.equal(attempt!.statusCode, 451);

      assert.equal(await worker().runOnce(), 0, 'not due before the backoff has passed');
      sink.mode = 'accept';
      clock += RETRY.baseMs;
      assert.equal(await worker().runOnce(), 1);
      assert.equal(sink.messages.length, 1);
      job = await jobRow(id);
      assert.equal(job.status, 'done');
      assert.equal(job.attempts, 2);
      assert.equal(job.lastError, null);
      assert.deepEqual(
        (await attemptsOf(id)).map((a) => a.outcome),
        ['retry', 'ok'],
      );
    });

    it('fails a permanent failure (550) at once', async () => {
      const id = await enqueueEmail('Never');
      sink.mode = 'permanent';
      assert.equal(await worker().runOnce(), 1);
      const job = await jobRow(id);
      assert.equal(job.status, 'failed');
      assert.equal(job.attempts, 1);
      assert.match(job.lastError ?? '', /550/);
      assert.deepEqual(
        (await attemptsOf(id)).map((a) => [a.outcome, a.statusCode]),
        [['failed', 550]],
      );
      clock += RETRY.capMs * 10;
      assert.equal(await worker().runOnce(), 0, 'a failed job is never tried again');
    });

    it('fails a job after the last try the retry policy allows', async () => {
      const id = await enqueueEmail('Doomed');
      sink.mode = 'transient';
      const delays: number[] = [];
      for (let i = 0; i < RETRY.maxAttempts; i++) {
        assert.equal(await worker().runOnce(), 1, `try ${i + 1} runs`);
        const job = await jobRow(id);
        if (job.status === 'pending') delays.push(job.runAt - clock);
        clock += RETRY.capMs;
      }
      assert.deepEqual(delays, [10_000, 20_000], 'the wait doubles');
      const job = await jobRow(id);
      assert.equal(job.status, 'failed');
      assert.equal(job.attempts, RETRY.maxAttempts);
      assert.match(job.lastError ?? '', /451/);
      assert.deepEqual(
        (await attemptsOf(id)).map((a) => a.outcome),
        ['retry', 'retry', 'failed'],
      );
      assert.equal(await worker().runOnce(), 0);
    });

    it('runs again a job whose worker crashed, once its lease has expired', async () => {
      const id = await enqueueEmail('Orphan');
      const [stale] = await new JobQueue(ctx.database).claim(10, clock, LEASE_MS); // a worker that then dies
      assert.equal(stale?.id, id);
      assert.equal(await worker().runOnce(), 0, 'leased: no other worker takes it');
      clock += LEASE_MS - 1;
      assert.equal(await worker().runOnce(), 0, 'still leased');
      clock += 2;
      assert.equal(await worker().runOnce(), 1, 'the lease expired: the job runs again');
      assert.equal(sink.messages.length, 1);
      const job = await jobRow(id);
      assert.equal(job.status, 'done');
      assert.equal(job.attempts, 2);
      const kept = await new JobQueue(ctx.database).finish(stale!, { outcome: 'failed', startedAt: clock, finishedAt: clock, error: 'late' });
      assert.equal(kept, false, 'the crashed worker, coming back, cannot overwrite the outcome');
      assert.equal((await jobRow(id)).status, 'done');
    });

    it('records tries that end together in one batch, each job moved on by its own outcome, a stale one left alone', async () => {
      const ids = [await enqueueEmail('Done'), await enqueueEmail('Retry'), await enqueueEmail('Failed'), await enqueueEmail('Stale')];
      const queue = new JobQueue(ctx.database);
      const claimed = await queue.claim(10, clock, LEASE_MS);
      assert.deepEqual(claimed.map((job) => job.id).sort(), [...ids].sort());
      const byId = new Map(claimed.map((job) => [job.id, job]));
      // the last job's lease ran out and another worker holds it now: this worker's claim is stale
      await ctx.database.db.updateTable('jobs').set({ attempts: 2 }).where('id', '=', ids[3]!).execute();
      const at = clock + 5;
      const kept = await Promise.all([
        queue.finish(byId.get(ids[0]!)!, { outcome: 'ok', startedAt: clock, finishedAt: at }),
        queue.finish(byId.get(ids[1]!)!, { outcome: 'retry', startedAt: clock, finishedAt: at, retryAt: at + 30_000, error: '451 busy', statusCode: 451 }),
        queue.finish(byId.get(ids[2]!)!, { outcome: 'failed', startedAt: clock, finishedAt: at, error: '550 no such user' }),
        queue.finish(byId.get(ids[3]!)!, { outcome: 'ok', startedAt: clock, finishedAt: at }),
      ]);
      assert.deepEqual(kept, [true, true, true, false]);
      const [done, retry, failed, stale] = await Promise.all(ids.map(jobRow));
      assert.deepEqual([done!.status, done!.lastError, done!.leaseUntil, done!.updatedAt], ['done', null, null, at]);
      assert.deepEqual([retry!.status, retry!.runAt, retry!.lastError, retry!.leaseUntil], ['pending', at + 30_000, '451 busy', null]);
      assert.deepEqual([failed!.status, failed!.lastError, failed!.runAt], ['failed', '550 no such user', clock]);
      assert.deepEqual([stale!.status, stale!.attempts], ['pending', 2]);
      assert.notEqual(stale!.leaseUntil, null, 'the other worker keeps its lease');
      // every try is in the delivery log, the stale one too
      for (const id of ids) assert.equal((await attemptsOf(id)).length, 1);
    });

    it('fails at once a job of a kind no channel delivers', async () => {
      const id = await enqueueJob(ctx.database.db, { kind: 'carrier-pigeon', payload: {}, runAt: clock });
      assert.equal(await worker().runOnce(), 1);
      const job = await jobRow(id);
      assert.equal(job.status, 'failed');
      assert.match(job.lastError ?? '', /carrier-pigeon/);
    });

    it('on stop, lets a delivery in flight finish and claims nothing more', async () => {
      let release!: () => void;
      let started!: () => void;
      const sendStarted = new Promise<void>((resolve) => (started = resolve));
      const gate: Channel = {
        send: (_job: Job) => {
          started();
          return new Promise<void>((resolve) => (release = resolve));
        },
      };
      const first = await enqueueJob(ctx.database.db, { kind: 'gate', payload: {}, runAt: clock });
      const w = new JobWorker(ctx.database, { gate }, { now: () => clock, concurrency: 1 });
      w.start();
      await sendStarted;
      const second = await enqueueJob(ctx.database.db, { kind: 'gate', payload: {}, runAt: clock });
      const stopped = w.stop(5_000);
      release();
      await stopped;
      assert.equal((await jobRow(first)).status, 'done');
      const untouched = await jobRow(second);
      assert.deepEqual([untouched.status, untouched.attempts, untouched.leaseUntil], ['pending', 0, null]);
    });

    it('claims again at once only when half of its slots are free, and then as many as are free', async () => {
      const { gate, releases, sent } = gatedChannel();
      const enqueue = async (n: number) => {
        for (let i = 0; i < n; i++) await enqueueJob(ctx.database.db, { kind: 'gate', payload: {}, runAt: clock });
      };
      const { counted, idle } = watchIdle(ctx.database);
      const sentReaches = (n: number) => sendsReach(sent, idle, n);
      await enqueue(3);
      // no poll of its own during the test: only the wake when slots free up claims
      const w = new JobWorker(counted, { gate }, { now: () => clock, concurrency: 4, pollIntervalMs: 60_000 });
      closers.push(() => w.stop(1_000));
      w.start();
      await sentReaches(3);
      await enqueue(7);

      releases.shift()!(); // two in flight: half of four
      await sentReaches(5);
      releases.shift()!(); // three in flight
      await new Promise((resolve) => setImmediate(resolve));
      await idle();
      assert.equal(sent(), 5, 'one free slot of four: no claim before the next poll');
      releases.shift()!(); // two in flight again
      await sentReaches(7);
      while (releases.length > 0) releases.shift()!();
    });

    it('claims again at once when the jobs in flight all ended during a claim that one receiver’s limit cut short', async () => {
      // the webhook lane: 16 slots, claimed again at 8 in flight; a receiver that answers fast, 14 of them
      const { gate, releases, sent } = gatedChannel();
      const release = (n: number) => {
        for (const next of releases.splice(0, n)) next();
      };
      // in one commit: a claim never sees part of them
      const enqueue = (n: number) =>
        enqueueJobs(
          ctx.database.db,
          Array.from({ length: n }, () => ({ kind: 'webhook', payload: { url: 'https://hooks.example.test/in' }, runAt: clock })),
        );
      const { counted, idle } = watchIdle(ctx.database);
      // a claim waits here once it has its rows, as a round trip to PostgreSQL does, while the jobs in flight end
      let held: Promise<void> | null = null;
      let letClaimGo = () => {};
      const holding = Object.assign(counted, { whenDurable: () => held ?? Promise.resolve() });
      const sentReaches = (n: number) => sendsReach(sent, idle, n);
      await enqueue(1);
      // no poll of its own during the test: only wakes claim
      const w = new JobWorker(holding, { webhook: gate }, { now: () => clock, pollIntervalMs: 60_000 });
      closers.push(async () => {
        letClaimGo();
        while (releases.length > 0) release(releases.length);
        await w.stop(1_000);
      });
      w.start();
      await sentReaches(1);
      release(1); // answered at once: a fast receiver, which may have 14 in flight
      await sentReaches(1);
      await enqueue(40);
      w.wake(); // as intake does after a commit
      await sentReaches(15);

      held = new Promise((resolve) => (letClaimGo = resolve));
      release(7); // 8 in flight, then 7: the receiver's half; the claim takes 7 and is held
      await sentReaches(15);
      release(7); // the rest end during the claim: none in flight
      await idle();
      held = null;
      letClaimGo();
      // the 7 claimed start, and the lane is claimed again at once up to the receiver's 14, not at the next poll
      await sentReaches(29);
    });

    it('keeps only a few deliveries in flight while the foreground is busy, all of them again once it is not', async () => {
      const releases: (() => void)[] = [];
      let inFlight = 0;
      let sent = 0;
      const gate: Channel = {
        send: () => {
          sent++;
          inFlight++;
          return new Promise<void>((resolve) =>
            releases.push(() => {
              inFlight--;
              resolve();
            }),
          );
        },
      };
      for (let i = 0; i < 12; i++) await enqueueJob(ctx.database.db, { kind: 'gate', payload: {}, runAt: clock });
      let busy = true;
      const { counted, idle } = watchIdle(ctx.database);
      const w = new JobWorker(
        counted,
        { gate },
        { now: () => clock, concurrency: 8, busyConcurrency: 2, pollIntervalMs: 60_000, foreground: { busy: () => busy } },
      );
      closers.push(() => w.stop(1_000));
      const sentReaches = (n: number) => sendsReach(() => sent, idle, n);
      w.start();
      await sentReaches(2);
      releases.shift()!(); // one of two in flight: claims the other slot
      await sentReaches(3);
      assert.equal(inFlight, 2);

      busy = false;
      w.wake(); // as the next poll does
      await sentReaches(9);
      assert.equal(inFlight, 8);
      while (releases.length > 0) releases.shift()!();
      await sentReaches(12);
      while (releases.length > 0) releases.shift()!();
    });

    it('two workers on one database never send the same job twice', {
      skip: TEST_DIALECT === 'sqlite' && 'two instances share PostgreSQL; SQLite runs one instance',
    }, async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 50; i++) ids.add(await enqueueEmail(`job ${i}`, ['ann@example.com']));
      const other = Database.open(ctx.config.database);
      const otherMailer = createMailer(ctx.config);
      closers.push(
        () => other.destroy(),
        () => otherMailer.close(),
      );
      await other.ping(); // both instances connected before the race starts
      const a = worker({ concurrency: 4 });
      const b = worker({ concurrency: 4 }, other, otherMailer);
      const counts = [0, 0];
      const drain = async (w: JobWorker, i: 0 | 1) => {
        for (let n = await w.runOnce(); n > 0; n = await w.runOnce()) counts[i]! += n;
      };
      // Several claim loops per instance, so that claims really overlap.
      await Promise.all([drain(a, 0), drain(b, 1), drain(a, 0), drain(b, 1), drain(a, 0), drain(b, 1)]);
      assert.equal(counts[0]! + counts[1]!, 50, `each job claimed once (${counts.join(' + ')})`);
      const subjects = sink.messages.map((m) => m.parsed.subject);
      assert.equal(subjects.length, 50);
      assert.equal(new Set(subjects).size, 50, 'no message sent twice');
      const rows = await ctx.database.db.selectFrom('jobs').select(['status', 'attempts']).execute();
      assert.ok(rows.every((r) => r.status === 'done' && r.attempts === 1));
    });
  });

  describe('without SMTP', () => {
    beforeEach(() => open({}));

    it('writes each message as an .eml file under <dataDir>/outbox and warns at start', async () => {
      assert.match(mailWarning(ctx.config) ?? '', /FORMGATE_SMTP_URL is not set.*outbox/);
      const id = await enqueueEmail('On disk');
      assert.equal(await worker().runOnce(), 1);
      assert.equal((await jobRow(id)).status, 'done');
      const dir = path.join(testDb.dataDir, 'outbox');
      const files = fs.readdirSync(dir);
      assert.equal(files.length, 1);
      assert.match(files[0]!, /^\d{4}-\d\d-\d\dT.*\.eml$/);
      // recorded as written to that file, not as an answer from a server
      const attempt = await ctx.database.db.selectFrom('jobAttempts').selectAll().where('jobId', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual([attempt.outcome, attempt.writtenTo, attempt.response, attempt.statusCode], ['ok', path.join(dir, files[0]!), null, null]);
      const parsed = await simpleParser(fs.readFileSync(path.join(dir, files[0]!)));
      assert.equal(parsed.subject, 'On disk');
      assert.deepEqual(parsed.from?.value, [{ address: 'forms@example.test', name: 'Formgate Test' }]);
      const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
      assert.deepEqual(
        to.flatMap((t) => t?.value.map((v) => v.address)),
        ['ann@example.com', 'bob@example.com'],
      );
    });
  });
});
