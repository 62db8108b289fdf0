// Run as a child process by test/unit/process-guard.test.ts: installs the guard of `formgate serve`,
// then lets real errors go uncaught (an 'error' event nobody listens to, a rejection nobody
// handles) and shows it still answers HTTP. Prints pino's JSON lines, then `listening <port>`.
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { guardProcess } from '../../src/cli/process-guard.js';

guardProcess(pino());
const server = createServer((_request, response) => response.end('still serving'));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  // a closed port: the socket emits 'error' (ECONNREFUSED) with no listener
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const closed = (probe.address() as AddressInfo).port;
    probe.close(() => {
      connect({ host: '127.0.0.1', port: closed });
      void readFile('/nonexistent/formgate-guard-test');
      process.stdout.write(`listening ${port}\n`);
    });
  });
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
