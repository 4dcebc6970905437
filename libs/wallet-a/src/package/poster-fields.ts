import type { FaceSlots } from './kind-fields';
import type { PassJsonField } from './pass-json-field';

/**
 * The front of the poster generic pass (Apple, "Creating a poster generic pass", iOS 27): a
 * header field and up to four primary fields over the artwork, and a footer field. Apple's
 * article allows two footer fields, but its WWDC26 session says the face shows only the first,
 * so one is written.
 */
export const POSTER_GENERIC_FACE = { headerFields: 1, primaryFields: 4, footerFields: 1 } as const;

/** The `posterGeneric` dictionary of pass.json. */
export interface PosterGenericFields {
  headerFields: PassJsonField[];
  primaryFields: PassJsonField[];
  footerFields: PassJsonField[];
  backFields: PassJsonField[];
}

/**
 * The poster generic pass of a generic pass's face, written beside its `generic` dictionary
 * (which older devices show): the first header field; the primary, then secondary, fields as
 * primary fields; the first auxiliary field as the footer. What has no room on the poster's
 * front goes to its back after the pass's back fields (the notification message stays first),
 * so a holder still finds every field, with its key, value and change message.
 */
export function posterGenericFields(
  face: FaceSlots,
  backFields: PassJsonField[],
): PosterGenericFields {
  const { headerFields, primaryFields, footerFields } = POSTER_GENERIC_FACE;
  const primary = [...face.primaryFields, ...face.secondaryFields];
  return {
    headerFields: face.headerFields.slice(0, headerFields),
    primaryFields: primary.slice(0, primaryFields),
    footerFields: face.auxiliaryFields.slice(0, footerFields),
    backFields: [
      ...backFields,
      ...face.headerFields.slice(headerFields),
      ...primary.slice(primaryFields),
      ...face.auxiliaryFields.slice(footerFields),
    ],
  };
}
