import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository's root, from this file's place in `libs/core/src/testing`; specs run from source. */
const ROOT = join(__dirname, '..', '..', '..', '..');

const COMMENT = /^(\/\/|\/\*|\*)/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * For specs that keep a rule about who writes a table ("only ever inserted", "written only
 * through X"): every match of the patterns a source file gets from `patternsOf`, over the
 * sources of `libs/` and `apps/` (specs, migrations and comment lines left out), as `path: its first line`,
 * sorted. Patterns are matched over the whole source, so a call may span lines; give them the
 * `g` flag.
 */
export function sourceMatches(patternsOf: (source: string) => RegExp[]): string[] {
  return ['libs', 'apps']
    .flatMap((top) =>
      sourceFiles(join(ROOT, top)).flatMap((file) => {
        const source = readFileSync(file, 'utf8');
        const lines = source.split('\n');
        return patternsOf(source).flatMap((pattern) =>
          [...source.matchAll(pattern)].flatMap((match) => {
            const line = lines[source.slice(0, match.index).split('\n').length - 1].trim();
            // A statement quoted in a comment writes nothing.
            return COMMENT.test(line) ? [] : [`${relative(ROOT, file)}: ${line}`];
          }),
        );
      }),
    )
    .sort();
}
