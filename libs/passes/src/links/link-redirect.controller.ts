import { Public, SkipRateLimit } from '@app/core';
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { LinkRedirectService } from './link-redirect.service';
import { isLinkPreviewAgent } from './preview-agents';

/**
 * `{PUBLIC_BASE_URL}/l/{slug}`, the short links on the back of passes: a 302 to the target
 * with its `utm_source`, counted as a click. Not part of the REST API, so not in Swagger.
 * Never refused by the rate limit (a holder tapping a link must reach it, also when a push
 * sends thousands of them through one carrier NAT); clicks per client are capped instead.
 */
@ApiExcludeController()
@Controller('l')
@Public()
@SkipRateLimit()
export class LinkRedirectController {
  constructor(private readonly links: LinkRedirectService) {}

  @Get(':slug')
  async redirect(
    @Param('slug') slug: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const { location, shortLink } = await this.links.resolve(slug);
    // no-store: every click must reach us, none may be answered from a browser or proxy cache.
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(302, location);
    if (request.method === 'GET' && !isLinkPreviewAgent(request.get('user-agent'))) {
      this.links.record(shortLink, { client: `ip:${request.ip ?? 'unknown'}` });
    }
  }
}
