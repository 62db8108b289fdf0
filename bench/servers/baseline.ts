/**
 * The baseline: a bare `node:http` server that reads each request (body included) and answers it
 * with a fixed response. Every throughput figure is a share of what this answers on the same machine.
 */
import http from 'node:http';

const BODY = JSON.stringify({ id: 'aaaaaaaaaaaaaaaaaaaa', formId: 'bbbbbbbbbbbbbbbbbbbb', createdAt: '2025-01-01T00:00:00.000Z', data: { name: 'fixed' } });
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) };

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, HEADERS);
    response.end(BODY);
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
