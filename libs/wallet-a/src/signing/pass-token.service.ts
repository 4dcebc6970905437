import { Holder, Pass } from '@app/passes';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Repository } from 'typeorm';
import { SecretSealer, type SecretBox } from './secret-sealer';
import { SerialOwners } from './serial-owners';

const HASH_BYTES = 32;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * The `authenticationToken` of each pass: random (32 characters), made when the pass is
 * first packaged. The database keeps a SHA-256 to check devices' `ApplePass` headers and an
 * sealed copy ({@link SecretSealer}) to put the same token into every later version of the
 * package (Apple devices keep using the token of the pass they hold). A personal holder
 * has a token of its own, kept the same way in its row, handed out only in its own package.
 * A token is set once, through {@link SerialOwners.issue}, and never replaced.
 */
@Injectable()
export class PassTokenService {
  private readonly box: SecretBox;

  constructor(
    @InjectRepository(Pass) private readonly passes: Repository<Pass>,
    @InjectRepository(Holder) private readonly holders: Repository<Holder>,
    private readonly owners: SerialOwners,
    sealer: SecretSealer,
  ) {
    this.box = sealer.box('walletA authenticationToken');
  }

  /** The pass's token, made (once, even under concurrent calls) if it has none yet. */
  async tokenFor(pass: Pass): Promise<string> {
    if (pass.walletAToken !== null) return this.decrypt(pass.walletAToken);
    const token = randomBytes(24).toString('base64url');
    const sealed = this.encrypt(token);
    if (await this.owners.issue({ pass }, { hash: sha256(token).toString('hex'), sealed })) {
      pass.walletAToken = sealed;
      return token;
    }
    // Another request made the token first: use theirs.
    const stored = await this.passes.findOneByOrFail({ id: pass.id });
    pass.walletAToken = stored.walletAToken;
    return this.decrypt(stored.walletAToken!);
  }

  /** The holder's own token, made (once, even under concurrent calls) if it has none yet. */
  async tokenForHolder(holder: Holder): Promise<string> {
    if (holder.walletAToken !== null) return this.decrypt(holder.walletAToken);
    const token = randomBytes(24).toString('base64url');
    const sealed = this.encrypt(token);
    if (await this.owners.issue({ holder }, { hash: sha256(token).toString('hex'), sealed })) {
      holder.walletAToken = sealed;
      return token;
    }
    const stored = await this.holders.findOneByOrFail({ id: holder.id });
    holder.walletAToken = stored.walletAToken;
    return this.decrypt(stored.walletAToken!);
  }

  /**
   * Checks an `ApplePass <token>` header value against the pass (or a holder: the same
   * columns), in constant time.
   */
  matches(owner: Pick<Pass, 'walletATokenHash'>, token: string): boolean {
    if (owner.walletATokenHash === null) return false;
    const expected = Buffer.from(owner.walletATokenHash, 'hex');
    const actual = sha256(token);
    return expected.length === HASH_BYTES && timingSafeEqual(actual, expected);
  }

  private encrypt(token: string): string {
    return this.box.seal(token);
  }

  private decrypt(stored: string): string {
    return this.box.open(stored);
  }
}
