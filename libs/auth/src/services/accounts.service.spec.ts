import { sourceMatches } from '@app/core/testing/source-writes';

const WRITE_METHOD = '(insert|update|save|upsert|delete|remove|softDelete|increment|decrement)';

/** Statements that write the account table (or delete a workspace, which takes its accounts). */
function accountWrites(source: string): RegExp[] {
  const patterns = [
    new RegExp(`\\.${WRITE_METHOD}\\(\\s*(Account|Workspace)\\s*[,)]`, 'g'),
    new RegExp(`getRepository\\(\\s*(Account|Workspace)\\s*\\)\\s*\\.\\s*${WRITE_METHOD}\\(`, 'g'),
    /(UPDATE|DELETE\s+FROM|INSERT\s+INTO)\s+`?(account|workspace)\b/gi,
  ];
  for (const [, name] of source.matchAll(
    /@InjectRepository\((?:Account|Workspace)\)\s+private\s+readonly\s+(\w+)/g,
  )) {
    patterns.push(new RegExp(`this\\.${name}\\s*\\.\\s*${WRITE_METHOD}\\(`, 'g'));
  }
  return patterns;
}

/** Every write allowed: new rows only, a workspace with its default account in one transaction. */
const ALLOWED = [
  'libs/auth/src/services/accounts.service.ts: await this.accounts.insert(account);',
  'libs/auth/src/services/workspaces.service.ts: await manager.insert(Workspace, workspace);',
  // The workspace's default account, in the transaction that creates the workspace.
  'libs/auth/src/services/workspaces.service.ts: await manager.insert(',
];

describe('accounts and workspaces', () => {
  it('are only ever inserted, so a default account read once stays true (AccountsService)', () => {
    const writes = sourceMatches(accountWrites);
    // A new write that changes or removes an account or a workspace: AccountsService keeps each
    // workspace's default account for the life of the process with no invalidation; drop it on
    // every instance (PrincipalChanges shows how) before allowing the write here.
    expect(writes).toEqual([...ALLOWED].sort());
  });
});
