import type { Server, ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';

/**
 * How long requests under way get to finish once a shutdown begins. The whole shutdown must fit a
 * container's default stop timeout (10 s, then SIGKILL): src/cli/serve.ts.
 */
export const DRAIN_DEADLINE_MS = 5_000;

/**
 * In `formgate serve`, a kept-alive connection with no request for this long is closed while
 * draining. Not at once: a proxy reuses its busy connections within milliseconds, and a connection
 * closed just as the next request is on its way fails that request (nginx answers a POST so
 * failed with 502: it retries only idempotent requests).
 */
export const IDLE_GRACE_MS = 1_000;
const SWEEP_MS = 100;

/**
 * How long a kept-alive connection may stay idle before the server closes it, on both surfaces (it
 * is Fastify's default). Longer than a reverse proxy keeps its own idle upstream connections (nginx
 * and AWS load balancers: 60 s), so that the proxy, not the server, closes them: a server that
 * closes one just as the proxy sends a request on it fails that request (Node's default of 5 s
 * made that race part of every quiet minute behind nginx).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export interface DrainOptions {
  /** Cut every connection still open then; DRAIN_DEADLINE_MS by default. */
  deadlineMs?: number;
  /** Close a connection once it has been idle this long; 0 (at once) by default, IDLE_GRACE_MS in `formgate serve`. */
  idleGraceMs?: number;
}

/** What a drain did: how many requests were still under way at its deadline and had their connections cut. */
export interface DrainOutcome {
  cut: number;
}

interface Connection {
  /** Answers not yet sent in full. */
  underWay: number;
  /** When the last answer was sent, or the connection opened. */
  idleSince: number;
  /** The socket's bytes read by then: more since means a request is arriving. */
  bytesAtIdle: number;
}

/** Resolves in the check phase, once the event loop's poll phase has run: connections waiting to be accepted are, and bytes waiting to be read are. */
const afterPoll = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Closes an HTTP server's keep-alive connections while it shuts down, for both surfaces. Closing
 * the listening socket stops new connections only: a client (a reverse proxy's pool above all) that
 * kept sending requests on its open connection kept the server open until its 25 s limit. While
 * draining, every answer carries `Connection: close` and its connection is closed once it is sent;
 * a connection idle for IDLE_GRACE_MS is closed, and whatever is still open at the deadline is cut.
 */
export class ConnectionDrain {
  private draining = false;
  private readonly connections = new Map<Socket, Connection>();
  private readonly answers = new Set<ServerResponse>();

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { underWay: 0, idleSince: performance.now(), bytesAtIdle: 0 });
      socket.once('close', () => this.connections.delete(socket));
    });
    // first, so that the header is set before any handler can answer
    server.prependListener('request', (request, response: ServerResponse) => this.track(request.socket, response));
  }

  /**
   * Stops taking connections and resolves once every open one is closed: each after its answer, an
   * idle one after `idleGraceMs`, any at `deadlineMs` whatever it is doing (a slow upload, a client
   * that sent half a request).
   */
  async drain({ deadlineMs = DRAIN_DEADLINE_MS, idleGraceMs = 0 }: DrainOptions = {}): Promise<DrainOutcome> {
    this.closeEachAfterAnswer();
    let cut = 0;
    // NOTE: a connection the kernel has completed waits in the listen backlog until the event loop
    // accepts it, with the request a proxy already sent on it; closing the listener before that
    // resets it, and nginx answers that POST 502 (a loaded machine made it happen at a drain
    // window's end). One poll phase first accepts them; a connect after the close is refused,
    // which a proxy tries on another instance.
    await afterPoll();
    this.closeIdle(idleGraceMs);
    const sweeper = setInterval(() => this.closeIdle(idleGraceMs), SWEEP_MS);
    const deadline = setTimeout(() => {
      cut = this.answers.size;
      this.server.closeAllConnections();
      for (const socket of this.connections.keys()) socket.destroy();
    }, deadlineMs);
    try {
      // NOTE: net's close, not http's: that one also closes every idle connection at once. (It also
      // stops http's unref'd timer of request timeouts; Fastify's close does that for the API.)
      await new Promise<void>((resolve) => net.Server.prototype.close.call(this.server, () => resolve()));
    } finally {
      clearInterval(sweeper);
      clearTimeout(deadline);
    }
    return { cut };
  }

  /**
   * From now on every answer (those under way too) carries `Connection: close` and its connection
   * ends once it is sent: from the drain on, a proxy's kept-alive connections are used up one answer
   * at a time, and a connect to the closed listener is refused, which a proxy tries elsewhere.
   * NOTE: not from the signal on (src/app.ts, beginStopping): through the drain window a proxy that
   * keeps sending then connected anew for each request, and one connection completed just before the
   * listener's close was reset under its request.
   */
  private closeEachAfterAnswer(): void {
    if (this.draining) return;
    this.draining = true;
    for (const response of this.answers) this.closeAfter(response);
  }

  private track(socket: Socket, response: ServerResponse): void {
    const connection = this.connections.get(socket);
    if (connection) connection.underWay++;
    this.answers.add(response);
    response.once('close', () => {
      this.answers.delete(response);
      if (!connection) return;
      connection.underWay--;
      connection.idleSince = performance.now();
      connection.bytesAtIdle = socket.bytesRead;
    });
    if (this.draining) this.closeAfter(response);
  }

  private closeAfter(response: ServerResponse): void {
    // Node then ends the connection once this answer is sent
    if (!response.headersSent) response.setHeader('connection', 'close');
    // An answer already on its way (a long export) leaves its connection open: the sweep closes it.
  }

  private closeIdle(graceMs: number): void {
    const now = performance.now();
    const idle = (socket: Socket, connection: Connection | undefined) =>
      connection !== undefined && connection.underWay === 0 && socket.bytesRead === connection.bytesAtIdle && now - connection.idleSince >= graceMs;
    const candidates = [...this.connections].filter(([socket, connection]) => idle(socket, connection)).map(([socket]) => socket);
    if (candidates.length === 0) return;
    // NOTE: closed after the next poll phase, and only if still idle then: a request already in a
    // connection's buffer (sent by a proxy as the sweep ran, or while the process was stalled for
    // longer than the grace) is read first, and its connection is then busy, not idle. Destroying
    // it with unread bytes would reset it under the request.
    void afterPoll().then(() => {
      for (const socket of candidates) if (idle(socket, this.connections.get(socket))) socket.destroy();
    });
  }
}
