import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the libraries (relative imports, types included) has no loop, and the
 * layers of the kinds of pass import only downwards: a kind's names and units below the DTOs'
 * users, WalletA's package builder below the PassKit web service and the holder page, WalletB's
 * Google resources below its services (docs/architecture.md, "Adding a kind of pass").
 */

const ROOT = join(__dirname, '..');
const LIBS = join(ROOT, 'libs');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Each file (relative to the repository) and the files it imports relatively. */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(LIBS);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => resolve(dirname(file), fileName))
      .map((target) => [`${target}.ts`, join(target, 'index.ts')].find((path) => known.has(path)))
      .filter((target) => target !== undefined)
      .map((target) => relative(ROOT, target));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** The loops of the graph: its strongly connected components of more than one file. */
function loops(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** Folders and what they may import of the libraries by relative path (besides themselves). */
const LAYERS: { folder: string; mayImport: string[] }[] = [
  { folder: 'libs/passes/src/kinds/', mayImport: ['libs/passes/src/dto/'] },
  {
    folder: 'libs/passes/src/dto/',
    mayImport: [
      'libs/passes/src/kinds/kind-names.ts',
      'libs/passes/src/localizations.ts',
      'libs/passes/src/entities/',
    ],
  },
  {
    folder: 'libs/wallet-a/src/package/',
    mayImport: ['libs/wallet-a/src/signing/'],
  },
  { folder: 'libs/wallet-b/src/google/', mayImport: [] },
];

describe('the import graph of the libraries', () => {
  const graph = importGraph();

  it('has no loop', () => {
    expect(loops(graph)).toEqual([]);
  });

  it.each(LAYERS)('lets $folder import only downwards', ({ folder, mayImport }) => {
    const upwards = [...graph]
      .filter(([file]) => file.startsWith(folder))
      .flatMap(([file, targets]) => targets.map((target) => `${file} -> ${target}`))
      .filter((edge) => {
        const target = edge.split(' -> ')[1];
        return (
          !target.startsWith(folder) && !mayImport.some((allowed) => target.startsWith(allowed))
        );
      });
    expect(upwards).toEqual([]);
  });
});
