import type { IncomingMessage } from 'node:http';

/**
 * Whether the client closed the connection before its request's body had arrived: Node.js then
 * fails the body's reading with ECONNRESET ("aborted"), which is also how a lost database
 * connection fails, and such a request was taken for a database that cannot write (issue 38).
 */
export function requestCutOff(request: IncomingMessage): boolean {
  return !request.complete && request.readableAborted;
}

/** What the log says of such a request: info, since nothing is wrong on this side. */
export const CUT_OFF_MESSAGE = 'the client went away before its request had arrived; nothing was changed';
