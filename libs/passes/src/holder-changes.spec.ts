import { sourceMatches } from '@app/core/testing/source-writes';

const WRITE_METHOD = '(update|save|upsert|increment|decrement)';

/** Statements that write the pass table, however they are spelled in this file. */
function passWrites(source: string): RegExp[] {
  const patterns = [
    /\bupdate\(\s*Pass\s*[,)]/g,
    new RegExp(`getRepository\\(\\s*Pass\\s*\\)\\s*\\.\\s*${WRITE_METHOD}\\(`, 'g'),
    /UPDATE\s+`?pass`?\s/gi,
  ];
  // Repositories of the pass entity injected under any name.
  for (const [, name] of source.matchAll(
    /@InjectRepository\(Pass\)\s+private\s+readonly\s+(\w+)/g,
  )) {
    patterns.push(new RegExp(`this\\.${name}\\s*\\.\\s*${WRITE_METHOD}\\(`, 'g'));
  }
  return patterns;
}

/**
 * The writes to the pass table allowed outside the one path, each for a reason: none of them
 * changes what holders see.
 */
const ALLOWED = [
  // The one path itself.
  "libs/passes/src/holder-changes.ts: const moved = await this.manager.update(Pass, where, { version: () => 'version + 1' });",
  'libs/passes/src/holder-changes.ts: await this.manager.update(Pass, { id: locked.id }, { ...columns, updatedTime });',
  // Holder counters, and the no-op update that locks the row before they move.
  'libs/passes/src/pass-counters.ts: .update(Pass)',
  'libs/passes/src/pass-counters.ts: .update(Pass)',
  "libs/passes/src/pass-counters.ts: if (!rowLocks) await manager.query('UPDATE pass SET version = version WHERE id = ?', [passId]);",
  // The WalletA token, made once before the first package of the pass is signed.
  'libs/wallet-a/src/signing/serial-owners.ts: .getRepository(Pass)',
  // The link values of a pass inserted in the same transaction, before anyone saw it.
  'libs/passes/src/passes.service.ts: await manager.update(Pass, { id: pass.id }, { passMetadata: pass.passMetadata });',
];

describe('holder-visible pass changes', () => {
  it('are written only through HolderChanges (bumpPassVersion), the counters and new rows', () => {
    const writes = sourceMatches(passWrites);
    // A new write to the pass table: go through HolderChangeSet.bumpPassVersion so the version,
    // Last-Modified, the change hooks and the after-commit kick all happen, or add it here with
    // the reason it changes nothing holders see.
    expect(writes).toEqual([...ALLOWED].sort());
  });
});
