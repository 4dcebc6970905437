import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A request the receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** How the receiver answers one request: an HTTP status, or `hang` (never answers). */
export type ReceiverAnswer = number | 'hang';

/** A parsed webhook body. */
export interface WebhookEvent {
  id: string;
  type: string;
  timestamp: string;
  workspaceId: string;
  data: Record<string, unknown>;
}

/**
 * A real HTTP endpoint on 127.0.0.1 for webhooks: records every request, answers 200 unless
 * told otherwise per path (a queue of answers, then 200).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly plans = new Map<string, ReceiverAnswer[]>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => receiver.answer(req.url ?? '/', req.headers, chunks, res));
    });
    return receiver;
  }

  /** The next answers for `path`, in order; 200 after them. */
  plan(path: string, ...answers: ReceiverAnswer[]): void {
    this.plans.set(path, [...(this.plans.get(path) ?? []), ...answers]);
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((request) => request.path === path);
  }

  /** Every request to `path`, checked with the Standard Webhooks library, as events. */
  events(path: string, secret: string): WebhookEvent[] {
    return this.at(path).map((request) => verify(secret, request));
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    res: ServerResponse,
  ): void {
    this.received.push({
      path,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      receivedAt: Date.now(),
    });
    const answer = this.plans.get(path)?.shift() ?? 200;
    if (answer === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
  }
}

/** Verifies a request's signature with the specification's own library; returns the event. */
export function verify(secret: string, request: ReceivedWebhook): WebhookEvent {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers) as WebhookEvent;
}
