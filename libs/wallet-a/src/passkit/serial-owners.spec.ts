import { sourceMatches } from '@app/core/testing/source-writes';

const DELETE_METHOD = '(delete|remove|softRemove)';

/** Code that sets a WalletA token hash, or deletes a pass or holder row. */
function ownerWrites(source: string): RegExp[] {
  const patterns = [
    /walletATokenHash\s*:/g,
    /wallet_a_token_hash/gi,
    new RegExp(`\\.${DELETE_METHOD}\\(\\s*(Pass|Holder)\\s*[,)]`, 'g'),
    new RegExp(`getRepository\\(\\s*(Pass|Holder)\\s*\\)\\s*\\.\\s*${DELETE_METHOD}\\(`, 'g'),
    /DELETE\s+FROM\s+`?(pass|holder)`?\s/gi,
  ];
  for (const [, name] of source.matchAll(
    /@InjectRepository\((?:Pass|Holder)\)\s+private\s+readonly\s+(\w+)/g,
  )) {
    patterns.push(new RegExp(`this\\.${name}\\s*\\.\\s*${DELETE_METHOD}\\(`, 'g'));
  }
  return patterns;
}

/** Every place allowed: new rows without a token, the token made once, and reads. */
const ALLOWED = [
  // New passes and holders start without a token.
  'libs/passes/src/passes.service.ts: walletATokenHash: null,',
  'libs/holders/src/holders.service.ts: walletATokenHash: null,',
  // The token, made once: only where there is none yet.
  'libs/wallet-a/src/signing/pass-token.service.ts: { id: pass.id, walletATokenHash: IsNull() },',
  "libs/wallet-a/src/signing/pass-token.service.ts: { walletATokenHash: sha256(token).toString('hex'), walletAToken: this.encrypt(token) },",
  'libs/wallet-a/src/signing/pass-token.service.ts: { id: holder.id, walletATokenHash: IsNull() },',
  "libs/wallet-a/src/signing/pass-token.service.ts: { walletATokenHash: sha256(token).toString('hex'), walletAToken: sealed },",
  // Reads: the columns, the serial's owner, the check of a token against it.
  "libs/passes/src/entities/pass.entity.ts: @Column({ name: 'wallet_a_token_hash', type: 'varchar', length: 64, nullable: true })",
  "libs/passes/src/entities/holder.entity.ts: @Column({ name: 'wallet_a_token_hash', type: 'varchar', length: 64, nullable: true })",
  "libs/wallet-a/src/passkit/passkit.service.ts: 'SELECT id AS pass_id, workspace_id, wallet_a_token_hash AS token_hash, NULL AS holder_id ' +",
  "libs/wallet-a/src/passkit/passkit.service.ts: 'UNION ALL SELECT pass_id, workspace_id, wallet_a_token_hash, id FROM holder ' +",
  'libs/wallet-a/src/passkit/passkit.service.ts: if (owner !== null && this.tokens.matches({ walletATokenHash: owner.tokenHash }, token)) {',
];

describe("a serial number's owner", () => {
  it('never changes once its token is made, so PassKitService keeps it without being told', () => {
    // A new write that replaces a token or deletes a pass or holder row: PassKitService keeps
    // each serial number's owner and token hash for the life of the process with no
    // invalidation; drop it on every instance (PrincipalChanges shows how) first, then allow
    // the write here.
    expect(sourceMatches(ownerWrites)).toEqual([...ALLOWED].sort());
  });
});
