import type { IncomingMessage } from 'node:http';

/** The media type of a Content-Type header, lower-cased, without parameters; '' when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Media types read as JSON: `application/json` and any `+json` type. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/json' || type.endsWith('+json');
}

/** Whether the request announces a body (a non-zero length, or a chunked one). */
export function hasBody(request: Pick<IncomingMessage, 'headers'>): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}
