/**
 * The visitor closed the connection before the body of their post had arrived: nothing was stored,
 * and there is nobody left to answer. Neither the database's fault nor the request's: Node.js
 * reports it as ECONNRESET ("aborted"), which read as a database that cannot take writes (issue 38).
 */
export class ClientAbortedError extends Error {
  constructor(cause?: unknown) {
    super('the visitor closed the connection before the body had arrived', { cause });
    this.name = 'ClientAbortedError';
  }
}
