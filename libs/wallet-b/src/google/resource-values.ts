import type { FieldDto, Pass } from '@app/passes';
import type { LocalizedString, WalletImage } from './wallet-objects.types';

/** The language of the texts we send (the pass's own; translations are another matter). */
const LANGUAGE = 'en';

export function localized(value: string): LocalizedString {
  return { defaultValue: { language: LANGUAGE, value } };
}

export function walletImage(uri: string, description: string): WalletImage {
  return { sourceUri: { uri }, contentDescription: localized(description) };
}

/**
 * The face fields of a pass in the order WalletA shows them: the header (topField first), the
 * primary, the secondary and the auxiliary fields.
 */
export function faceFields(pass: Pass): FieldDto[] {
  const metadata = pass.passMetadata;
  return [
    ...(metadata.topField ? [metadata.topField] : []),
    ...(metadata.headerFields ?? []),
    ...(metadata.primaryFields ?? []),
    ...(metadata.secondaryFields ?? []),
    ...(metadata.auxiliaryFields ?? []),
  ];
}
