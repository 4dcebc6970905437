import type { Request, Response } from 'express';
import type { PassPackage } from '../package/pass-package.service';

export const PKPASS_CONTENT_TYPE = 'application/vnd.apple.pkpass';
/** A bundle of passes (Apple, "Distributing and updating a pass"). */
export const PKPASSES_CONTENT_TYPE = 'application/vnd.apple.pkpasses';

/**
 * For one person's pages and packages: their name, barcode and (in a package) their pass's
 * authentication token must not stay in a shared cache, nor on a shared computer's disk.
 */
export const PERSONAL_CACHE_CONTROL = 'private, no-store';

/**
 * Who may keep a package:
 *
 * - `shared`: the shared pass, the same for everyone: any cache may keep it but asks again
 *   each time, with the validators for a 304;
 * - `device`: the PassKit web service's download, which Wallet asks for again with
 *   If-Modified-Since and the protocol answers with a 304, so the validators stay; `private`
 *   because a holder's copy is personal and every copy carries its pass's token;
 * - `personal`: a holder's or a bundle's download through its link: kept nowhere, so it goes
 *   without validators (there is no copy to revalidate) and is always answered whole.
 */
export type PackageCaching = 'shared' | 'device' | 'personal';

const CACHE_CONTROL: Record<PackageCaching, string> = {
  shared: 'no-cache',
  device: 'private, no-cache',
  personal: PERSONAL_CACHE_CONTROL,
};

/**
 * Sends a .pkpass (or a .pkpasses bundle); with validators, answering 304 when the client's
 * copy is current, unless it is `personal`.
 */
export function sendPackage(
  request: Request,
  response: Response,
  pkpass: PassPackage,
  options: { fileName: string; caching: PackageCaching; contentType?: string },
): void {
  response.setHeader('Cache-Control', CACHE_CONTROL[options.caching]);
  if (options.caching !== 'personal') {
    response.setHeader('Last-Modified', pkpass.lastModified.toUTCString());
    response.setHeader('ETag', pkpass.etag);
    if (isCurrent(request, pkpass)) {
      response.status(304).end();
      return;
    }
  }
  response.setHeader('Content-Type', options.contentType ?? PKPASS_CONTENT_TYPE);
  response.setHeader('Content-Disposition', `attachment; filename="${options.fileName}"`);
  response.setHeader('Content-Length', String(pkpass.buffer.length));
  response.status(200).end(pkpass.buffer);
}

/** Whether the client's copy is this version: by its ETag, else by its Last-Modified. */
function isCurrent(request: Request, pkpass: PassPackage): boolean {
  const noneMatch = request.headers['if-none-match'];
  const modifiedSince = request.headers['if-modified-since'];
  return noneMatch !== undefined
    ? noneMatch.split(',').some((tag) => tag.trim() === pkpass.etag)
    : modifiedSince !== undefined &&
        !Number.isNaN(Date.parse(modifiedSince)) &&
        pkpass.lastModified.getTime() <= Date.parse(modifiedSince);
}
