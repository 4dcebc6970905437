import {
  createConnection,
  createServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 that a test can cut, to stand for a database server that stops
 * and comes back without stopping the real one (other suites share it).
 *
 * `cut()` resets every open connection, both ways, as a server that dies does (the server
 * side sees its client vanish and rolls back what it had open), and resets each new one as
 * soon as it is accepted; `restore()` forwards again.
 *
 * `silence()` stands for a host that stops answering without closing anything (powered off,
 * network partition, packets dropped): every connection stays open and new ones are accepted,
 * but no byte goes through either way (they are swallowed, as dropped packets are);
 * `restore()` forwards again on the connections still open.
 *
 * `freeze()` stands for a server that stops without closing anything (SIGSTOP): connections stay
 * open and new ones are accepted, and the bytes sent meanwhile are held, as the kernel holds
 * them for a stopped process, and delivered in order on `restore()`.
 */
export class TcpProxy {
  /** Connections forwarded, and connections reset at accept while cut. */
  readonly counts = { forwarded: 0, refused: 0, resetByCut: 0 };

  private readonly server: Server;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private isCut = false;
  private isSilent = false;
  private isFrozen = false;
  /** Bytes held while frozen, per destination socket, in order. */
  private readonly held = new Map<Socket, Buffer[]>();

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => this.accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target.host, target.port);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get cutNow(): boolean {
    return this.isCut;
  }

  /** Connections open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  cut(): void {
    this.isCut = true;
    for (const pair of this.pairs) {
      this.counts.resetByCut++;
      pair.client.resetAndDestroy();
      pair.upstream.resetAndDestroy();
    }
    this.pairs.clear();
  }

  silence(): void {
    this.isSilent = true;
  }

  freeze(): void {
    this.isFrozen = true;
  }

  restore(): void {
    this.isCut = false;
    this.isSilent = false;
    this.isFrozen = false;
    for (const [socket, chunks] of this.held) {
      if (!socket.destroyed) for (const chunk of chunks) socket.write(chunk);
    }
    this.held.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.isCut) {
      this.counts.refused++;
      client.resetAndDestroy();
      return;
    }
    this.counts.forwarded++;
    const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
    upstream.on('error', () => undefined);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('close', drop);
    upstream.once('close', drop);
    // Not pipe(): bytes that arrive while silent are dropped, not delivered on restore.
    client.on('data', (chunk: Buffer) => this.forward(upstream, chunk));
    upstream.on('data', (chunk: Buffer) => this.forward(client, chunk));
  }

  private forward(to: Socket, chunk: Buffer): void {
    if (this.isSilent) return;
    if (this.isFrozen) {
      this.held.set(to, [...(this.held.get(to) ?? []), chunk]);
      return;
    }
    to.write(chunk);
  }
}
