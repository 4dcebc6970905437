import { LimitPerClientIp, Public, SkipRateLimit } from '@app/core';
import { Controller, Get, Header, Headers, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import type { Request, Response } from 'express';
import { HolderService } from './holder.service';
import { PERSONAL_CACHE_CONTROL, PKPASSES_CONTENT_TYPE, sendPackage } from './send-package';

class SlugParam {
  @Matches(/^[A-Za-z0-9_-]{3,64}$/) slug!: string;
}

class ImageParams extends SlugParam {
  /** The upload's key, as the pass's `uploadInfoList` has it. */
  @Matches(/^[A-Za-z0-9_-]{1,64}$/) uploadKey!: string;
}

/**
 * An upload's bytes never change and a new image is a new upload (a new URL), so browsers and
 * proxies may keep it for a year without asking again.
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';

class HolderParams extends SlugParam {
  /** A holder token: base64url. */
  @Matches(/^[A-Za-z0-9_-]{16,64}$/) holderToken!: string;
}

class BundleParams extends SlugParam {
  /** A bundle token: base64url, as a holder token. */
  @Matches(/^[A-Za-z0-9_-]{16,64}$/) bundleToken!: string;
}

/**
 * Requests one client IP may make to the holder pages a minute. A launch brings a crowd behind
 * one address (a venue's Wi-Fi, carrier-grade NAT): a thousand phones opening the page, its
 * images and the package within a minute are about 5,000 requests, all cheap reads of cached
 * versions, so these pages are not held to the API's per-IP rate.
 */
const HOLDER_PAGE_REQUESTS_PER_IP_PER_MINUTE = 10_000;

/**
 * What a holder's browser opens: `downloadUrl` = `/p/{slug}` (the shared pass),
 * `/p/{slug}/h/{holderToken}` (a personal holder's) or `/p/{slug}/b/{bundleToken}` (a bundle of
 * holders'). Published passes only.
 */
@ApiExcludeController()
@Controller('p')
@Public()
@SkipRateLimit()
@LimitPerClientIp('holder-pages', HOLDER_PAGE_REQUESTS_PER_IP_PER_MINUTE)
export class HolderController {
  constructor(private readonly holder: HolderService) {}

  @Get(':slug')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  @Header('Vary', 'Accept-Language')
  async page(
    @Param() { slug }: SlugParam,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const page = await this.holder.page(slug, acceptLanguage);
    // Replaces the API's policy (set for every response in apps/api) with the page's own.
    response.setHeader('Content-Security-Policy', page.contentSecurityPolicy);
    return page.html;
  }

  @Get(':slug/pass.pkpass')
  async download(
    @Param() { slug }: SlugParam,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const pkpass = await this.holder.package(slug);
    sendPackage(request, response, pkpass, { fileName: `${slug}.pkpass`, caching: 'shared' });
  }

  /** The pass's logo and strip files the page shows (`<img>` from its own origin). */
  @Get(':slug/images/:uploadKey')
  async image(@Param() { slug, uploadKey }: ImageParams, @Res() response: Response): Promise<void> {
    const image = await this.holder.image(slug, uploadKey);
    response.setHeader('Content-Type', 'image/png');
    response.setHeader('Cache-Control', IMMUTABLE);
    response.setHeader('ETag', image.etag);
    // Express answers 304 itself when If-None-Match names this ETag.
    response.send(image.bytes);
  }

  @Get(':slug/h/:holderToken')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', PERSONAL_CACHE_CONTROL)
  @Header('Vary', 'Accept-Language')
  async holderPage(
    @Param() { slug, holderToken }: HolderParams,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const page = await this.holder.holderPage(slug, holderToken, acceptLanguage);
    response.setHeader('Content-Security-Policy', page.contentSecurityPolicy);
    return page.html;
  }

  /**
   * `Holder.googleSaveUrl`: a redirect to the holder's Google save link, signed at each visit
   * (so the API never signs one per holder it shows, and a link kept from an event never goes
   * stale). Not cached: the link carries its signing time and expiring image URLs.
   */
  @Get(':slug/h/:holderToken/wallet-b')
  @Header('Cache-Control', 'no-store')
  async holderWalletB(
    @Param() { slug, holderToken }: HolderParams,
    @Res() response: Response,
  ): Promise<void> {
    response.redirect(302, await this.holder.holderWalletBUrl(slug, holderToken));
  }

  @Get(':slug/h/:holderToken/pass.pkpass')
  async holderDownload(
    @Param() { slug, holderToken }: HolderParams,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const pkpass = await this.holder.holderPackage(slug, holderToken);
    sendPackage(request, response, pkpass, { fileName: `${slug}.pkpass`, caching: 'personal' });
  }

  /** A bundle's page (`pageUrl`): its holders' passes, with buttons that add them all. */
  @Get(':slug/b/:bundleToken')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', PERSONAL_CACHE_CONTROL)
  @Header('Vary', 'Accept-Language')
  async bundlePage(
    @Param() { slug, bundleToken }: BundleParams,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const page = await this.holder.bundlePage(slug, bundleToken, acceptLanguage);
    response.setHeader('Content-Security-Policy', page.contentSecurityPolicy);
    return page.html;
  }

  /** A bundle's `walletAUrl`: one `.pkpasses` of its holders' packages. */
  @Get(':slug/b/:bundleToken/passes.pkpasses')
  async bundleDownload(
    @Param() { slug, bundleToken }: BundleParams,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const bundle = await this.holder.bundlePackage(slug, bundleToken);
    sendPackage(request, response, bundle, {
      fileName: `${slug}.pkpasses`,
      caching: 'personal',
      contentType: PKPASSES_CONTENT_TYPE,
    });
  }

  /** A bundle's `googleSaveUrl`: a redirect to its grouped save link, signed at each visit. */
  @Get(':slug/b/:bundleToken/wallet-b')
  @Header('Cache-Control', 'no-store')
  async bundleWalletB(
    @Param() { slug, bundleToken }: BundleParams,
    @Res() response: Response,
  ): Promise<void> {
    response.redirect(302, await this.holder.bundleWalletBUrl(slug, bundleToken));
  }
}
