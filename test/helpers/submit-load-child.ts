// A load process of its own (forked by test/helpers/submit-load.ts): submits steadily over real HTTP
// to the submit surfaces it is told of, as `fetch` clients asking for JSON, each submission with a
// unique marker in its data and from a loopback address of its own, and records every answer.
// Runs in its own process so that killing and restarting servers never stalls the visitors' side.
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { LoadAnswer, LoadCommand, LoadOptions, LoadReport } from './submit-load.js';

const options = JSON.parse(process.argv[2]!) as LoadOptions;
let targets: string[] = [];
let stopping = false;
let sent = 0;
const answers: LoadAnswer[] = [];
// emits 'command' at each message of the parent (the submit addresses, or stop)
const commands = new EventEmitter();
commands.setMaxListeners(0); // one waiting listener per visitor loop

process.on('message', (message: LoadCommand) => {
  if (message.type === 'targets') targets = message.urls;
  if (message.type === 'stop') stopping = true;
  commands.emit('command');
});

/** The fields of submission `n`: its marker, and fields a notification and a webhook carry. */
function fieldsOf(n: number): Record<string, string> {
  const marker = `${options.runId}-${n}`;
  return { marker, name: `Visitor ${n}`, email: `visitor${n}@example.com`, message: `Load message ${n} (${marker})` };
}

/** Loopback source addresses, a new one per submission (127.<subnet>.x.y): visitors of their own. */
function sourceOf(n: number): string {
  return `127.${options.subnet}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

function post(url: string, body: string, localAddress: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json', ...(options.host ? { host: options.host } : {}) };
    const request = http.request(url, { method: 'POST', headers, localAddress, agent: false, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', reject);
    request.end(body);
  });
}

async function submitOne(n: number, target: string): Promise<LoadAnswer> {
  const formId = options.formIds[n % options.formIds.length]!;
  const fields = fieldsOf(n);
  const base = { marker: `${options.runId}-${n}`, formId, target, fields };
  try {
    const answer = await post(`${target}/${formId}`, JSON.stringify(fields), sourceOf(n));
    if (answer.status !== 200) return { ...base, outcome: 'refused', status: answer.status, detail: answer.text.slice(0, 200) };
    const body = JSON.parse(answer.text) as { id?: unknown; data?: { marker?: unknown } };
    if (typeof body.id !== 'string' || body.data?.marker !== base.marker)
      return { ...base, outcome: 'refused', status: 200, detail: answer.text.slice(0, 200) };
    return { ...base, outcome: 'acknowledged', status: 200, id: body.id };
  } catch (error) {
    return { ...base, outcome: 'connection-failed', detail: (error as Error).message };
  }
}

/** One visitor after another: submit, wait `pauseMs`, again, until told to stop or out of requests. */
async function visitorLoop(): Promise<void> {
  while (!stopping && sent < options.maxRequests) {
    const target = targets[sent % Math.max(1, targets.length)];
    if (target === undefined) {
      // no server to send to yet: wait until the parent names one (or says to stop)
      await once(commands, 'command');
      continue;
    }
    const answer = await submitOne(sent++, target);
    answers.push(answer);
    // a visitor whose page got no answer tries again a little later, not at once
    const pause = answer.outcome === 'connection-failed' ? Math.max(100, options.pauseMs) : options.pauseMs;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

await Promise.all(Array.from({ length: options.concurrency }, () => visitorLoop()));
// the report goes once told to stop (or out of requests, which the parent sees as a failure to stop)
while (!stopping) await once(commands, 'command');
const report: LoadReport = { sent, answers };
process.send!(report, () => process.disconnect());
