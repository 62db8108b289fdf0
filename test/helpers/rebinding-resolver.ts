// Preloaded (`--import`) into `formgate serve` by test/reliability/webhook-ssrf.test.ts: a DNS
// stand-in that answers like a rebinding attacker's server for names under `.rebind.test`: the
// first lookup of a name gets REBIND_FIRST_ANSWER (a public address), every later one 127.0.0.1.
// Both lookup APIs are answered (the promise one a check would use, the callback one a connect
// would use), so a second lookup anywhere is caught. Other names go to the system resolver.
// Each answer is reported on stdout as a JSON line {"standIn":"resolver",…}.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';

const firstAnswer = process.env.REBIND_FIRST_ANSWER ?? '';
const lookups = new Map<string, number>();

function answerFor(hostname: string): LookupAddress | null {
  if (!hostname.endsWith('.rebind.test')) return null;
  const count = (lookups.get(hostname) ?? 0) + 1;
  lookups.set(hostname, count);
  const address = count === 1 ? firstAnswer : '127.0.0.1';
  process.stdout.write(`${JSON.stringify({ standIn: 'resolver', hostname, lookup: count, address })}\n`);
  return { address, family: 4 };
}

const systemPromiseLookup = dns.promises.lookup;
dns.promises.lookup = (async (hostname: string, options?: LookupOptions) => {
  const answer = answerFor(hostname);
  if (!answer) return systemPromiseLookup(hostname, options ?? {});
  return options?.all ? [answer] : answer;
}) as typeof dns.promises.lookup;

const systemLookup = dns.lookup;
dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
  const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
  const answer = answerFor(hostname);
  if (!answer) return (systemLookup as (...args: unknown[]) => void)(hostname, options, callback);
  const all = typeof options === 'object' && options !== null && (options as LookupOptions).all;
  process.nextTick(() => (all ? done(null, [answer]) : done(null, answer.address, answer.family)));
}) as typeof dns.lookup;
