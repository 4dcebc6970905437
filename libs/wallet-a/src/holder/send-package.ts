import type { Request, Response } from 'express';
import type { PassPackage } from '../package/pass-package.service';

export const PKPASS_CONTENT_TYPE = 'application/vnd.apple.pkpass';
/** A bundle of passes (Apple, "Distributing and updating a pass"). */
export const PKPASSES_CONTENT_TYPE = 'application/vnd.apple.pkpasses';

/**
 * Sends a .pkpass (or a .pkpasses bundle) with validators, answering 304 when the client's copy
 * is current.
 */
export function sendPackage(
  request: Request,
  response: Response,
  pkpass: PassPackage,
  fileName: string,
  contentType = PKPASS_CONTENT_TYPE,
): void {
  response.setHeader('Last-Modified', pkpass.lastModified.toUTCString());
  response.setHeader('ETag', pkpass.etag);
  response.setHeader('Cache-Control', 'no-cache');
  const noneMatch = request.headers['if-none-match'];
  const modifiedSince = request.headers['if-modified-since'];
  const notModified =
    noneMatch !== undefined
      ? noneMatch.split(',').some((tag) => tag.trim() === pkpass.etag)
      : modifiedSince !== undefined &&
        !Number.isNaN(Date.parse(modifiedSince)) &&
        pkpass.lastModified.getTime() <= Date.parse(modifiedSince);
  if (notModified) {
    response.status(304).end();
    return;
  }
  response.setHeader('Content-Type', contentType);
  response.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
  response.setHeader('Content-Length', String(pkpass.buffer.length));
  response.status(200).end(pkpass.buffer);
}
