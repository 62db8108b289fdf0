// Runs inside a network namespace of its own, beside `formgate serve` (test/reliability/webhook-ssrf.test.ts):
//   node --import tsx test/helpers/ns-stand-ins.ts <public address> <pid to outlive>
// - a canary on every address of the namespace ([::], dual stack, and the receiver's port on
//   127.0.0.1 and ::1): a webhook must never reach it;
// - a "public" receiver on <public address>, which the namespace's loopback carries (nothing leaves
//   the namespace): POST /ok answers 204, POST /redirect/<status>?to=<url> answers that redirect.
// Reports on stdout, one JSON line each: {"standIn":"ready",…}, then one line per request received.
// Exits when the process <pid to outlive> (the server) is gone.
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const [publicAddress = '', watchedPid = ''] = process.argv.slice(2);

function report(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ standIn: line.standIn, ...line })}\n`);
}

const seen = (standIn: string, request: IncomingMessage) =>
  report({ standIn, method: request.method, url: request.url, host: request.headers.host, local: request.socket.localAddress });

const canaryHandler: RequestListener = (request, response) => {
  seen('canary', request);
  request.resume();
  response.end('canary');
};

const receiverHandler: RequestListener = (request, response) => {
  seen('public', request);
  request.resume();
  const url = new URL(request.url ?? '/', 'http://receiver');
  const redirect = /^\/redirect\/(3\d\d)$/.exec(url.pathname);
  if (redirect) {
    response.writeHead(Number(redirect[1]), { location: url.searchParams.get('to') ?? '/' });
    response.end();
  } else {
    response.writeHead(url.pathname === '/ok' ? 204 : 404);
    response.end();
  }
};

function listen(handler: RequestListener, host: string, port: number, ipv6Only = false): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, ipv6Only }, () => resolve(server));
  });
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

const canary = await listen(canaryHandler, '::', 0);
const receiver = await listen(receiverHandler, publicAddress, 0);
// the receiver's port on loopback too: a webhook whose name is rebound to 127.0.0.1 would land here
await listen(canaryHandler, '127.0.0.1', portOf(receiver));
await listen(canaryHandler, '::1', portOf(receiver), true);
report({ standIn: 'ready', canaryPort: portOf(canary), receiverPort: portOf(receiver) });

setInterval(() => {
  try {
    process.kill(Number(watchedPid), 0);
  } catch {
    process.exit(0);
  }
}, 200);
