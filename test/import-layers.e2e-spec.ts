import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the libraries (relative imports and `@app/…` aliases, types included) has
 * no loop, between files, between the folders of a library or between libraries; a library
 * reaches its own files by relative path, never through its own alias; the kind rules
 * (libs/kinds) and all they import stay free of Nest and TypeORM; and some folders import only
 * downwards: a
 * pass's stored metadata below the requests and responses that carry it, WalletA's package
 * builder below the PassKit web service and the holder page, WalletB's Google resources below
 * its services (docs/architecture.md, "Adding a kind of pass").
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

function specFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return specFiles(path);
    return entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** A library's alias (tsconfig.json's `paths`): `@app/<library>` or `@app/<library>/<path>`. */
const ALIAS = /^@app\/([a-z-]+)(?:\/(.*))?$/;

/** The path an import names, without its extension: relative, or through a library's alias. */
function importedPath(file: string, name: string): string | undefined {
  if (name.startsWith('.')) return resolve(dirname(file), name);
  const alias = ALIAS.exec(name);
  return alias === null ? undefined : join(LIBS, alias[1], 'src', alias[2] ?? '');
}

/** The library a file of `libs/` belongs to. */
const libraryOf = (file: string): string => relative(LIBS, file).split('/')[0];

/**
 * The room of a file (relative to the repository) inside its library: the folder of `src/` it
 * is in, or the file itself when it lies at the top of `src/`.
 */
function roomOf(file: string): string {
  const [libs, library, src, first, ...rest] = file.split('/');
  return rest.length === 0 ? file : `${libs}/${library}/${src}/${first}/`;
}

/** The packages and aliases each file names (`import`, `export … from`, `import()`). */
function namesImportedBy(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.map(({ fileName }) => fileName);
}

/** Each file's imports of the libraries: the file it names, and how it named it. */
function importsOf(files: string[]): Map<string, { target: string; name: string }[]> {
  const known = new Set(files);
  const imports = new Map<string, { target: string; name: string }[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const found = importedFiles.flatMap(({ fileName: name }) => {
      const path = importedPath(file, name);
      if (path === undefined) return [];
      const target = [`${path}.ts`, join(path, 'index.ts')].find((each) => known.has(each));
      return target === undefined ? [] : [{ target, name }];
    });
    imports.set(file, found);
  }
  return imports;
}

/** Each file (relative to the repository) and the files it imports. */
function importGraph(imports: Map<string, { target: string; name: string }[]>) {
  return new Map(
    [...imports].map(([file, found]) => [
      relative(ROOT, file),
      found.map(({ target }) => relative(ROOT, target)),
    ]),
  );
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
  { folder: 'libs/passes/src/metadata/', mayImport: ['libs/passes/src/localizations.ts'] },
  {
    folder: 'libs/passes/src/dto/',
    mayImport: ['libs/passes/src/metadata/', 'libs/passes/src/entities/'],
  },
  {
    folder: 'libs/wallet-a/src/package/',
    mayImport: ['libs/wallet-a/src/signing/'],
  },
  { folder: 'libs/wallet-b/src/google/', mayImport: [] },
];

describe('the import graph of the libraries', () => {
  const imports = importsOf(sourceFiles(LIBS));
  const graph = importGraph(imports);

  it('has no loop', () => {
    expect(loops(graph)).toEqual([]);
  });

  it('has no loop between libraries', () => {
    const libraries = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const library = libraryOf(join(ROOT, file));
      const others = targets.map((target) => libraryOf(join(ROOT, target)));
      libraries.set(library, [
        ...new Set([
          ...(libraries.get(library) ?? []),
          ...others.filter((other) => other !== library),
        ]),
      ]);
    }
    expect(loops(libraries)).toEqual([]);
  });

  it('has no loop between the folders of a library', () => {
    const rooms = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const room = roomOf(file);
      const library = libraryOf(join(ROOT, file));
      const others = targets
        .filter((target) => libraryOf(join(ROOT, target)) === library)
        .map(roomOf)
        .filter((other) => other !== room);
      rooms.set(room, [...new Set([...(rooms.get(room) ?? []), ...others])]);
    }
    expect(loops(rooms)).toEqual([]);
  });

  it('reaches its own library by relative path, not through its own alias', () => {
    const own = [...sourceFiles(LIBS), ...specFiles(LIBS)].flatMap((file) => {
      const library = libraryOf(file);
      return namesImportedBy(file)
        .filter((name) => ALIAS.exec(name)?.[1] === library)
        .map((name) => `${relative(ROOT, file)} -> ${name}`);
    });
    expect(own).toEqual([]);
  });

  it('keeps the kind rules and everything they import free of Nest and TypeORM', () => {
    const reached = new Set<string>();
    const next = sourceFiles(join(LIBS, 'kinds'));
    while (next.length > 0) {
      const file = next.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      next.push(...(imports.get(file) ?? []).map(({ target }) => target));
    }
    const frameworks = [...reached].flatMap((file) =>
      namesImportedBy(file)
        .filter((name) => /^(@nestjs\/|typeorm(\/|$))/.test(name))
        .map((name) => `${relative(ROOT, file)} -> ${name}`),
    );
    expect(frameworks).toEqual([]);
  });

  it.each(LAYERS)('lets $folder import only downwards', ({ folder, mayImport }) => {
    const library = libraryOf(join(ROOT, folder));
    const upwards = [...graph]
      .filter(([file]) => file.startsWith(folder))
      .flatMap(([file, targets]) => targets.map((target) => `${file} -> ${target}`))
      .filter((edge) => {
        const target = edge.split(' -> ')[1];
        // Other libraries are below or beside this one: the loop test above keeps them so.
        if (libraryOf(join(ROOT, target)) !== library) return false;
        return (
          !target.startsWith(folder) && !mayImport.some((allowed) => target.startsWith(allowed))
        );
      });
    expect(upwards).toEqual([]);
  });
});
