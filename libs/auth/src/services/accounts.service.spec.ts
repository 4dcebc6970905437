import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

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

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('accounts and workspaces', () => {
  it('are only ever inserted, so a default account read once stays true (AccountsService)', () => {
    const writes = ['libs', 'apps'].flatMap((top) =>
      sourceFiles(join(ROOT, top)).flatMap((file) => {
        const source = readFileSync(file, 'utf8');
        const patterns = accountWrites(source);
        // Matched over the whole source (a call may span lines), reported by its first line.
        const lines = source.split('\n');
        return patterns.flatMap((pattern) =>
          [...source.matchAll(pattern)].map((match) => {
            const line = lines[source.slice(0, match.index).split('\n').length - 1];
            return `${relative(ROOT, file)}: ${line.trim()}`;
          }),
        );
      }),
    );
    // A new write that changes or removes an account or a workspace: AccountsService keeps each
    // workspace's default account for the life of the process with no invalidation; drop it on
    // every instance (PrincipalChanges shows how) before allowing the write here.
    expect(writes.sort()).toEqual([...ALLOWED].sort());
  });
});
