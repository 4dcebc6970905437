import type { FieldDto, PassMetadataDto } from './kind-payloads';

type FaceMetadata = Pick<
  PassMetadataDto,
  'topField' | 'headerFields' | 'primaryFields' | 'secondaryFields' | 'auxiliaryFields'
>;

/**
 * The face fields of a pass in the order WalletA shows them: the header (topField first), the
 * primary, the secondary and the auxiliary fields.
 */
export function faceFieldsOf(metadata: FaceMetadata): FieldDto[] {
  return [
    ...(metadata.topField ? [metadata.topField] : []),
    ...(metadata.headerFields ?? []),
    ...(metadata.primaryFields ?? []),
    ...(metadata.secondaryFields ?? []),
    ...(metadata.auxiliaryFields ?? []),
  ];
}

/**
 * Face fields whose key (in any case) names something both wallets have a place for: a ticket's
 * seat, a passenger's name (WalletA semantic tags, WalletB class properties), so a seat is a
 * seat on both. The first name of a role that the pass has a field of counts.
 */
export const FIELD_ROLES = {
  person: ['passenger', 'name'],
  seat: ['seat'],
  row: ['row'],
  section: ['section'],
  gate: ['gate'],
  arrivalGate: ['arrivalGate', 'destinationGate'],
  boardingGroup: ['boardingGroup'],
  confirmationCode: ['confirmationCode'],
  coach: ['coach'],
  platform: ['platform'],
} as const;
export type FieldRole = keyof typeof FIELD_ROLES;

/**
 * The value of the face field that plays `role`: the holder's (`values`), else the pass's;
 * undefined when the pass has no such field or its value is blank.
 */
export function fieldRoleValue(
  metadata: FaceMetadata,
  values: Record<string, string>,
  role: FieldRole,
): string | undefined {
  const fields = faceFieldsOf(metadata);
  for (const name of FIELD_ROLES[role]) {
    const field = fields.find((item) => item.key.toLowerCase() === name.toLowerCase());
    if (field === undefined) continue;
    const text = Object.prototype.hasOwnProperty.call(values, field.key)
      ? values[field.key]
      : field.value;
    return text.trim() === '' ? undefined : text;
  }
  return undefined;
}

/** Reads the values of the fields that play a role, for a pass or a holder's copy of it. */
export type RoleReader = (role: FieldRole) => string | undefined;

export function roleReader(metadata: FaceMetadata, values: Record<string, string>): RoleReader {
  return (role) => fieldRoleValue(metadata, values, role);
}
