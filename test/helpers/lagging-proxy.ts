import net from 'node:net';

export interface LaggingProxy {
  /** `url` with its host and port turned to the proxy's. */
  readonly url: string;
  /** Holds everything the server sends from now on, in order, until `resume`. */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback to the server of `url` that hands on what the server sends `lagMs`
 * late, in order (a slow network, or a server slow to write), and can hold it altogether. What the
 * client sends goes on at once.
 */
export async function startLaggingProxy(url: string, lagMs: number): Promise<LaggingProxy> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const held: Array<() => void> = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      const handOn = () => setTimeout(() => client.write(chunk), lagMs);
      if (stalled) held.push(handOn);
      else handOn();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const handOn of held.splice(0)) handOn();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
