import { Injectable } from '@nestjs/common';
import type { Pass } from './entities/pass.entity';
import type { Holder } from './entities/holder.entity';

/** Makes "Add to WalletB" links; provided by the WalletB integration when it is present. */
export interface GoogleSaveLinkProvider {
  /** A save link for a new holder of the pass, or null when there can be none. */
  saveUrlFor(pass: Pass): Promise<string | null>;
  /** Whether {@link saveUrlFor} has a link, told without making (signing) one. */
  passCanSave(pass: Pass): boolean;
  /** A save link for a personal holder's own object, or null when there can be none. */
  saveUrlForHolder(pass: Pass, holder: Holder): Promise<string | null>;
  /** Whether {@link saveUrlForHolder} has a link, told without making (signing) one. */
  holderCanSave(pass: Pass, holder: Holder): boolean;
  /**
   * One save link of several holders' own objects, grouped under `groupingId` in the holders'
   * order; null when none of them can be saved.
   */
  saveUrlForHolders(pass: Pass, holders: Holder[], groupingId: string): Promise<string | null>;
}

/**
 * The pass's raw WalletB link (`googleSaveUrl`) without the passes module knowing Google
 * Wallet: the integration registers itself here, like the pass change hooks.
 */
@Injectable()
export class GoogleSaveLinks {
  private provider?: GoogleSaveLinkProvider;

  provide(provider: GoogleSaveLinkProvider): void {
    this.provider = provider;
  }

  /** Null without a provider, as with a provider that has no link for this pass. */
  saveUrlFor(pass: Pass): Promise<string | null> {
    return this.provider?.saveUrlFor(pass) ?? Promise.resolve(null);
  }

  /**
   * {@link saveUrlFor} of each pass, in order. Passes that cannot have a link (no provider, a
   * draft) are answered without a promise each: a page of 20 drafts made 80 (bench:api).
   */
  async saveUrlsFor(passes: Pass[]): Promise<(string | null)[]> {
    const provider = this.provider;
    if (provider === undefined || !passes.some((pass) => provider.passCanSave(pass))) {
      return passes.map(() => null);
    }
    return Promise.all(
      passes.map((pass) =>
        provider.passCanSave(pass) ? provider.saveUrlFor(pass) : Promise.resolve(null),
      ),
    );
  }

  /**
   * The holder's own signed link (the holder page's button and the target of
   * `Holder.googleSaveUrl`, which redirects here).
   */
  saveUrlForHolder(pass: Pass, holder: Holder): Promise<string | null> {
    return this.provider?.saveUrlForHolder(pass, holder) ?? Promise.resolve(null);
  }

  /**
   * A bundle's one link: the holders' own objects, grouped, in their order.
   * Null without a provider, as when none of the holders can be saved.
   */
  saveUrlForHolders(pass: Pass, holders: Holder[], groupingId: string): Promise<string | null> {
    return this.provider?.saveUrlForHolders(pass, holders, groupingId) ?? Promise.resolve(null);
  }

  /** Whether the holder has a save link now, without signing one: false without a provider. */
  holderCanSave(pass: Pass, holder: Holder): boolean {
    return this.provider?.holderCanSave(pass, holder) ?? false;
  }
}
