import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ProblemError } from '../errors.js';
import { problemBody } from './problem-body.js';

/** A request Node's HTTP parser refused, before any route saw it, as a problem of the catalogue. */
function clientProblem(error: NodeJS.ErrnoException): ProblemError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ProblemError('headers_too_large', 'The request line and headers are larger than 16 KB.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ProblemError('request_timeout', 'The request was not received in time.');
    default:
      return new ProblemError('validation_error', 'The request is not valid HTTP/1.1.', { errors: ['request: is not valid HTTP/1.1'] });
  }
}

/**
 * The `clientError` listener of both surfaces: Node would answer a bare `431`, `408` or `400` of
 * its own, so the answer is written here, as a problem document, and the connection closed.
 */
export function answerClientError(docsUrl: () => string): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // NOTE: a response already under way (a timeout mid-answer) cannot get a second status line.
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (socket.writable && !answering) {
      const problem = clientProblem(error);
      const body = JSON.stringify(problemBody(docsUrl(), problem.code, problem.detail, problem.extra));
      socket.write(
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

/**
 * An `Expect` other than `100-continue` would get a bare `417` from Node. RFC 9110 lets a server
 * ignore an expectation it does not know (`MAY` answer 417), so the request is served as usual.
 */
export function ignoreUnknownExpectations(server: Server): void {
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
}
