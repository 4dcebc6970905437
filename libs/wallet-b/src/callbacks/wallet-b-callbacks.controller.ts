import { Public, SkipRateLimit } from '@app/core';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { WalletBCallbacksService } from './wallet-b-callbacks.service';

/**
 * `POST /callbacks/wallet-b`: Google Wallet's save/delete callbacks (the class's
 * `callbackOptions.url`). Authenticated by Google's signature, not by our credentials; not part
 * of the public REST API, so left out of the OpenAPI document. Not rate-limited: Google calls
 * from a few addresses, and a refused callback is only retried later.
 */
@ApiExcludeController()
@Controller('callbacks')
@Public()
@SkipRateLimit()
export class WalletBCallbacksController {
  constructor(private readonly callbacks: WalletBCallbacksService) {}

  @Post('wallet-b')
  @HttpCode(200)
  async receive(@Body() body: unknown): Promise<void> {
    await this.callbacks.receive(body);
  }
}
