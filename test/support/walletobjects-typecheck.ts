import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/** Google's schema names of what we send: `walletobjects_v1.Schema$<name>`. */
export type WalletSchema =
  | 'GenericClass'
  | 'GenericObject'
  | 'LoyaltyClass'
  | 'LoyaltyObject'
  | 'OfferClass'
  | 'OfferObject'
  | 'EventTicketClass'
  | 'EventTicketObject'
  | 'FlightClass'
  | 'FlightObject'
  | 'TransitClass'
  | 'TransitObject'
  /** A save link's JWT payload (`{loyaltyObjects: [...]}`, ...). */
  | 'Resources'
  /** The body of an addMessage call. */
  | 'AddMessageRequest';

/** The schema of each class type's class and object, by the wallet-b library's type names. */
export const SCHEMAS: Record<string, { class: WalletSchema; object: WalletSchema }> = {
  generic: { class: 'GenericClass', object: 'GenericObject' },
  loyalty: { class: 'LoyaltyClass', object: 'LoyaltyObject' },
  offer: { class: 'OfferClass', object: 'OfferObject' },
  eventTicket: { class: 'EventTicketClass', object: 'EventTicketObject' },
  flight: { class: 'FlightClass', object: 'FlightObject' },
  transit: { class: 'TransitClass', object: 'TransitObject' },
};

export interface Payload {
  /** A name for the messages (`loyalty class`, ...). */
  name: string;
  schema: WalletSchema;
  value: unknown;
}

/**
 * Type-checks payloads against Google's own typings (`@googleapis/walletobjects`), each written
 * as a literal `const x: walletobjects_v1.Schema$<schema> = {...}` so TypeScript's excess
 * property checks apply: a property Google's API does not define, or a value of the wrong type,
 * is a diagnostic. Returns the diagnostics, `<payload name>: <message>`; none when all fit.
 */
export function typeCheckPayloads(payloads: Payload[]): string[] {
  const typings = dirname(require.resolve('@googleapis/walletobjects/package.json'));
  const dir = mkdtempSync(join(tmpdir(), 'wps-walletobjects-'));
  const file = join(dir, 'payloads.ts');
  const lines = [
    `import type { walletobjects_v1 } from ${JSON.stringify(join(typings, 'build', 'index'))};`,
    ...payloads.map(
      (payload, index) =>
        `// ${payload.name}\nexport const payload${index}: walletobjects_v1.Schema$${payload.schema} = ${JSON.stringify(payload.value, null, 2)};`,
    ),
  ];
  const text = lines.join('\n');
  const fileLines = text.split('\n');
  writeFileSync(file, text);
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      types: [],
    });
    const source = program.getSourceFile(file)!;
    return [
      ...program.getOptionsDiagnostics(),
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      const owner = fileLines
        .slice(0, line + 1)
        .reverse()
        .find((text) => text.startsWith('// '));
      return `${owner?.slice(3) ?? 'imports'}: ${message}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
