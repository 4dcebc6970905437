import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An S3-compatible store for tests: an HTTP server on 127.0.0.1 that answers PutObject,
 * GetObject, HeadObject and DeleteObject with path-style addressing (`/<bucket>/<key>`), as
 * MinIO does behind `S3_ENDPOINT`. Any bucket exists. Signatures are not verified, but every
 * request must be signed: an `Authorization: AWS4-HMAC-SHA256 Credential=<key id>/...` header
 * and an `x-amz-date`, else 403 AccessDenied, as S3 answers an anonymous request to a private
 * bucket. Errors are S3's XML error bodies (NoSuchKey, AccessDenied, MethodNotAllowed).
 */

export interface StoredS3Object {
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

export interface S3FakeRequest {
  method: string;
  bucket: string;
  key: string;
  status: number;
}

const SIGNED = /^AWS4-HMAC-SHA256 Credential=[^/\s]+\/\d{8}\/[^/]+\/s3\/aws4_request,/;

export class S3Fake {
  /** Objects by `<bucket>/<key>`. */
  readonly objects = new Map<string, StoredS3Object>();
  /** Every request answered, in order. */
  readonly requests: S3FakeRequest[] = [];

  private readonly server: Server;
  private port = 0;

  private constructor(readonly credentials: { accessKeyId: string; secretAccessKey: string }) {
    this.server = createServer((request, response) => {
      void this.handle(request, response);
    });
  }

  static async start(): Promise<S3Fake> {
    const fake = new S3Fake({ accessKeyId: 'AKIDS3FAKE', secretAccessKey: 's3-fake-secret' });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The service's S3 settings for a store at `endpoint` (this fake, or a proxy in front). */
  serviceEnv(endpoint = this.url): Record<string, string> {
    return {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET_PREFIX: 'test-',
      S3_ACCESS_KEY_ID: this.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: this.credentials.secretAccessKey,
    };
  }

  /** Whether an object is stored under the service's storage key `<bucket>/<rest>`. */
  holds(bucket: string, key: string): boolean {
    return this.objects.has(`${bucket}/${key}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const path = decodeURIComponent((request.url ?? '/').split('?')[0]);
    const slash = path.indexOf('/', 1);
    const bucket = slash === -1 ? path.slice(1) : path.slice(1, slash);
    const key = slash === -1 ? '' : path.slice(slash + 1);
    const body = await readBody(request);
    const answer = (status: number, headers: Record<string, string> = {}, payload?: Buffer) => {
      this.requests.push({ method, bucket, key, status });
      response.writeHead(status, headers);
      response.end(method === 'HEAD' ? undefined : payload);
    };
    const error = (status: number, code: string, message: string) =>
      answer(
        status,
        { 'content-type': 'application/xml' },
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
            `<Message>${message}</Message><Resource>${path}</Resource></Error>`,
        ),
      );

    const authorization = request.headers.authorization ?? '';
    if (!SIGNED.test(authorization) || request.headers['x-amz-date'] === undefined) {
      error(403, 'AccessDenied', 'Access Denied');
      return;
    }
    if (bucket === '' || key === '') {
      error(405, 'MethodNotAllowed', 'Only object requests are supported by this fake');
      return;
    }
    const id = `${bucket}/${key}`;
    const stored = this.objects.get(id);
    switch (method) {
      case 'PUT': {
        const etag = `"${createHash('md5').update(body).digest('hex')}"`;
        this.objects.set(id, {
          body,
          contentType: request.headers['content-type'] ?? 'binary/octet-stream',
          etag,
          lastModified: new Date(),
        });
        answer(200, { etag });
        return;
      }
      case 'GET':
      case 'HEAD':
        if (stored === undefined) {
          error(404, 'NoSuchKey', 'The specified key does not exist.');
          return;
        }
        answer(
          200,
          {
            'content-type': stored.contentType,
            'content-length': String(stored.body.length),
            etag: stored.etag,
            'last-modified': stored.lastModified.toUTCString(),
          },
          stored.body,
        );
        return;
      case 'DELETE':
        this.objects.delete(id);
        answer(204);
        return;
      default:
        error(405, 'MethodNotAllowed', `${method} is not allowed`);
    }
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
