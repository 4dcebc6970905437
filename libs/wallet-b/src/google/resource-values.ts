import { faceFieldsOf } from '@app/kinds';
import { type FieldDto, type Pass, type PassLocalization } from '@app/passes';
import type { LocalizedString, TranslatedString, WalletImage } from './wallet-objects.types';

/** The language of the texts we send (the pass's own; translations are another matter). */
const LANGUAGE = 'en';

export function localized(value: string, translations: TranslatedString[] = []): LocalizedString {
  return {
    defaultValue: { language: LANGUAGE, value },
    ...(translations.length > 0 ? { translatedValues: translations } : {}),
  };
}

/** The pass's `localizations` of one of its texts, as Google's translated values. */
export function translationsOf(
  pass: Pass,
  text: (localization: PassLocalization) => string | undefined,
): TranslatedString[] {
  return Object.entries(pass.passMetadata.localizations ?? {}).flatMap(([language, texts]) => {
    const value = text(texts);
    return value === undefined || value === '' ? [] : [{ language, value }];
  });
}

/** `value` in Google's localized form when the pass translates it; else undefined. */
export function translated(
  pass: Pass,
  value: string,
  text: (localization: PassLocalization) => string | undefined,
): LocalizedString | undefined {
  const translations = translationsOf(pass, text);
  return translations.length > 0 ? localized(value, translations) : undefined;
}

export function walletImage(uri: string, description: string): WalletImage {
  return { sourceUri: { uri }, contentDescription: localized(description) };
}

/** The face fields of a pass in the order WalletA shows them. */
export function faceFields(pass: Pass): FieldDto[] {
  return faceFieldsOf(pass.passMetadata);
}
