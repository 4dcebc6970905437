import type { AppConfig } from '@app/core';
import type { LoggerService } from '@nestjs/common';
import { createApnsClient } from '../apns/apns-client.factory';
import type { ApnsClient } from '../apns/apns-client';
import type { SigningMaterialProvider } from '../signing/signing-material';
import { PUSH_SENT, type PushOutcome, type WalletAPusher } from './wallet-a-pusher';

/**
 * WalletA pass-update pushes over APNs. The client (and its HTTP/2 connections) is made on
 * first use and then kept for the life of the process.
 */
export class ApnsPusher implements WalletAPusher {
  private client?: ApnsClient;

  constructor(
    private readonly config: AppConfig,
    private readonly signing: SigningMaterialProvider,
    private readonly logger: LoggerService,
  ) {}

  unavailableReason(): string | null {
    return this.apns().unavailableReason;
  }

  async pushUpdates(
    tokens: readonly string[],
    onOutcome: (token: string, outcome: PushOutcome, index: number) => void | Promise<void>,
  ): Promise<void> {
    // Apple's pass-update push: an empty JSON payload, topic = the pass type identifier.
    await this.apns().sendAll(tokens, (token, result, index) =>
      onOutcome(
        token,
        result.status === 'sent' ? PUSH_SENT : { status: result.status, reason: result.reason },
        index,
      ),
    );
  }

  private apns(): ApnsClient {
    this.client ??= createApnsClient(this.config, this.signing.get(), this.logger);
    return this.client;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
