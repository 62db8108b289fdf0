import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConnectionDrain } from '../../src/web/connection-drain.js';

// A drain must never reset a connection that already carries a request: that request was sent by a
// proxy that will not send a POST again (issue 38: a 502 through nginx at the end of a drain window
// on a loaded machine). The stall of a loaded machine is made here by blocking the event loop while
// a client in another process connects and sends.

/**
 * The client, in a process of its own so that it runs while this one is blocked: `first` sends one
 * request and waits for its answer (a kept-alive connection, as a proxy's pool has), then waits for
 * the file `go`; then it sends `POST /`, writes the file `sent`, and prints what came back.
 */
const CLIENT = `
const net = require('node:net');
const fs = require('node:fs');
const [port, folder, first] = process.argv.slice(1);
const socket = net.connect(Number(port), '127.0.0.1');
let received = '';
socket.setEncoding('utf8');
const post = 'POST / HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 2\\r\\n\\r\\nhi';
const send = () => socket.write(post, () => fs.writeFileSync(folder + '/sent', ''));
socket.on('connect', () => {
  if (first !== 'yes') return send();
  socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');
});
socket.on('data', (chunk) => {
  received += chunk;
  if (first === 'yes' && received.includes('first')) {
    received = '';
    fs.writeFileSync(folder + '/idle', '');
    const wait = setInterval(() => { if (fs.existsSync(folder + '/go')) { clearInterval(wait); send(); } }, 5);
  }
});
socket.on('end', () => { console.log(received.split('\\r\\n')[0]); process.exit(0); });
socket.on('error', (error) => { console.log(error.code); process.exit(0); });
`;

/** Blocks the event loop until `file` exists (the other process's step), or fails after 10 s. */
function blockUntil(file: string): void {
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(file)) if (Date.now() > deadline) throw new Error(`no ${path.basename(file)} within 10 s`);
}

describe('ConnectionDrain with a stalled event loop', () => {
  let folder: string;
  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-drain-'));
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  async function scenario(name: string, keptAlive: boolean): Promise<string> {
    const steps = fs.mkdtempSync(path.join(folder, `${name}-`));
    const server = http.createServer((request, response) => {
      request.resume();
      request.once('end', () => response.end(request.method === 'GET' ? 'first' : 'second'));
    });
    server.keepAliveTimeout = 60_000;
    const drain = new ConnectionDrain(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = spawn(process.execPath, ['-e', CLIENT, String(port), steps, keptAlive ? 'yes' : 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    client.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<void>((resolve) => client.once('exit', () => resolve()));
    if (keptAlive) {
      // its first answer came: the connection is idle, as a proxy's pooled one
      const deadline = Date.now() + 10_000;
      while (!fs.existsSync(path.join(steps, 'idle'))) {
        assert.ok(Date.now() < deadline, 'the client’s first answer within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      fs.writeFileSync(path.join(steps, 'go'), '');
    }
    // the stall: the client connects and sends while this process runs nothing
    blockUntil(path.join(steps, 'sent'));
    await drain.drain({ idleGraceMs: 0, deadlineMs: 5_000 });
    await exited;
    return output.trim();
  }

  it('accepts and answers a connection waiting in the listen backlog with its request, before closing the listener', async () => {
    assert.equal(await scenario('backlog', false), 'HTTP/1.1 200 OK');
  });

  it('answers a request that reached an idle kept-alive connection before the sweep could see it, rather than reset it', async () => {
    assert.equal(await scenario('idle', true), 'HTTP/1.1 200 OK');
  });
});
