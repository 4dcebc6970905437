import { passKindOf } from '@app/kinds';
import { type Pass } from '@app/passes';
import { buildPassJson, type PassJsonContext } from './pass-json';
import { appleStyleOf } from './pass-json-kinds';
import { buildPassStrings } from './pass-strings';

/** A package's files besides its images. */
export interface PassFiles {
  /** `pass.json`'s bytes. */
  passJson: Buffer;
  /** `<lang>.lproj/pass.strings` of each of the pass's languages. */
  strings: Map<string, Buffer>;
}

/**
 * `pass.json`, and the `pass.strings` of each of the pass's languages, keyed by the texts
 * pass.json shows in its style. The pass's kind is worked out once, for the shared pass or the
 * holder's copy of `context`.
 */
export function buildPassFiles(pass: Pass, context: PassJsonContext): PassFiles {
  const kind = passKindOf(pass.passMetadata, context.holder);
  const passJson = buildPassJson(pass, context, kind);
  const strings = buildPassStrings(
    passJson,
    appleStyleOf(kind),
    pass.passMetadata.localizations,
    // A holder's own value is in no language of the pass's.
    new Set(Object.keys(context.holder?.fieldValues ?? {})),
  );
  return { passJson: Buffer.from(JSON.stringify(passJson)), strings };
}
