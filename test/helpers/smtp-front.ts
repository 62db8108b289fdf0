import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { until } from './eventually.js';

/**
 * What the front does to the SMTP conversations passing through it:
 * - `none`: passes them on untouched;
 * - `closed`: the port is closed (connections refused) and open connections are cut;
 * - `silent`: a new connection is accepted and never greeted; an open one is answered nothing more;
 * - `dropMidData`: once the client has started the message (after DATA), the connection is cut
 *   half-way through it, so the server never takes it;
 * - `stallMidData`: the message is let start (354) and then nothing more is answered;
 * - `loseAnswer`: the server takes the message, but its answer (250) never reaches the client,
 *   whose connection is cut: the client cannot know it was delivered (a duplicate is allowed).
 */
export type SmtpFault = 'none' | 'closed' | 'silent' | 'dropMidData' | 'stallMidData' | 'loseAnswer';

export interface SmtpFront {
  /** `smtp://127.0.0.1:<port>`: the address the service is given; it never changes. */
  url: string;
  fault: SmtpFault;
  /** Switches the fault (opens or closes the port as needed). */
  setFault(fault: SmtpFault): Promise<void>;
  /** How many conversations each fault acted on (`closed` counts the connections it cut). */
  hits: Record<SmtpFault, number>;
  /**
   * Messages sent whole whose answer never reached the client (the answer lost, or the connection
   * cut while it waited for it): the server may have taken them, so the client may send them again.
   */
  answersUnknown: number;
  close(): Promise<void>;
}

/** Where one conversation is: before the message, sending it (after DATA's 354), or waiting for the answer to its end. */
type Stage = 'commands' | 'message' | 'awaitingAnswer';

/**
 * A TCP front on a port of its own before a real SMTP server (`upstream`), that injects the
 * faults of a mail server going down, hanging or cutting connections, on the conversations of a
 * real client (nodemailer's pool keeps its connections open between messages, so faults act on
 * open connections as on new ones).
 */
export async function startSmtpFront(upstream: { host: string; port: number }): Promise<SmtpFront> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const front: SmtpFront = {
    url: '',
    fault: 'none',
    setFault,
    hits: { none: 0, closed: 0, silent: 0, dropMidData: 0, stallMidData: 0, loseAnswer: 0 },
    answersUnknown: 0,
    close,
  };

  function track(socket: Socket): Socket {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  }

  function onConnection(client: Socket): void {
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (front.fault === 'silent') {
      front.hits.silent++;
      return; // accepted, never greeted: the client's greeting timeout must end it
    }
    const server = track(createConnection(upstream));
    let stage: Stage = 'commands';
    let tail = ''; // the last bytes the client sent: the end of a message may come in a chunk of its own
    let acted = false;
    const hit = (fault: SmtpFault) => {
      if (acted) return;
      acted = true;
      front.hits[fault]++;
    };
    const cut = () => {
      client.destroy();
      server.destroy();
    };
    client.on('close', () => {
      if (stage === 'awaitingAnswer') front.answersUnknown++;
      server.destroy();
    });
    server.on('close', () => client.destroy());

    client.on('data', (chunk: Buffer) => {
      const fault = front.fault;
      if (fault === 'silent' || (fault === 'stallMidData' && stage !== 'commands')) {
        hit(fault);
        return; // swallowed: nothing reaches the server, nothing comes back
      }
      if (stage === 'message' && fault === 'dropMidData') {
        hit(fault);
        server.write(chunk.subarray(0, Math.floor(chunk.length / 2)));
        return void setImmediate(cut);
      }
      server.write(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-8);
      // DATA ends a pipelined group; the message follows only once the server has answered 354
      if (stage === 'commands' && /(^|\n)DATA\r\n$/i.test(tail)) stage = 'message';
      else if (stage === 'message' && tail.endsWith('\r\n.\r\n')) stage = 'awaitingAnswer';
    });

    server.on('data', (chunk: Buffer) => {
      const fault = front.fault;
      if (fault === 'silent' || (fault === 'stallMidData' && stage !== 'commands' && !chunk.toString('latin1').startsWith('354'))) {
        hit(fault);
        return;
      }
      if (stage === 'awaitingAnswer') {
        if (fault === 'loseAnswer') {
          hit(fault);
          return void cut();
        }
        stage = 'commands';
      }
      client.write(chunk);
    });
  }

  async function open(): Promise<void> {
    // the same port again: the service's URL does not change when its SMTP server comes back (the
    // port may take a moment to be free once the old server closed)
    await until(
      `the SMTP front's port ${port} to be free again`,
      async () => {
        const next = createServer(onConnection);
        try {
          await new Promise<void>((resolve, reject) => {
            next.once('error', reject);
            next.listen(port, '127.0.0.1', () => resolve());
          });
        } catch {
          return false;
        }
        server = next;
        port = (next.address() as AddressInfo).port;
        return true;
      },
      5_000,
      100,
    );
  }

  async function shut(): Promise<void> {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  }

  async function setFault(fault: SmtpFault): Promise<void> {
    if (fault === 'closed' && server) {
      front.hits.closed += clients.size;
      await shut();
    }
    if (fault !== 'closed' && !server) await open();
    front.fault = fault;
  }

  async function close(): Promise<void> {
    await shut();
  }

  await open();
  front.url = `smtp://127.0.0.1:${port}`;
  return front;
}
