import { isPaddedBase64, NotEmpty, Required } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsOptional,
  IsString,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import { createPublicKey } from 'node:crypto';

/**
 * What the phone hands the terminal: Apple's Value Added Services payload holds at most 64 bytes
 * (Wallet truncates a longer one, so a member number would be cut off at the till); the same
 * limit applies to a holder's own message.
 */
export const NFC_MESSAGE_MAX_BYTES = 64;

/** Why an NFC message cannot be used, or null: 1–64 bytes once encoded as UTF-8. */
export function nfcMessageProblem(message: string): string | null {
  if (message.length === 0) return 'must not be empty';
  const bytes = Buffer.byteLength(message, 'utf8');
  return bytes > NFC_MESSAGE_MAX_BYTES
    ? `must be at most ${NFC_MESSAGE_MAX_BYTES} bytes of UTF-8 (it has ${bytes})`
    : null;
}

/** A string that {@link nfcMessageProblem} accepts; the message names the limit it broke. */
export const IsNfcMessage = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isNfcMessage',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && nfcMessageProblem(value) === null,
        defaultMessage: (args) =>
          typeof args?.value === 'string'
            ? (nfcMessageProblem(args.value) ?? '')
            : 'must be a string',
      },
    },
    options,
  );

/** The named curve OpenSSL reports for NIST P-256 (secp256r1), the curve VAS terminals use. */
const P256 = 'prime256v1';

/**
 * Whether `base64` is the Base64 of a DER X.509 SubjectPublicKeyInfo holding an EC P-256 public
 * key. OpenSSL (through node:crypto) parses the key and names its curve; it also accepts bytes
 * after the DER structure, so the key must encode back to exactly the bytes given (a compressed
 * point stays compressed, so both point forms pass).
 */
export function isEcP256PublicKey(base64: string): boolean {
  if (base64.length === 0 || !isPaddedBase64(base64)) return false;
  const der = Buffer.from(base64, 'base64');
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    return (
      key.asymmetricKeyType === 'ec' &&
      key.asymmetricKeyDetails?.namedCurve === P256 &&
      key.export({ format: 'der', type: 'spki' }).equals(der)
    );
  } catch {
    return false;
  }
}

export const EC_P256_KEY_MESSAGE =
  'must be the Base64 of a DER SubjectPublicKeyInfo holding an EC P-256 public key';

const IsEcP256PublicKey = (): PropertyDecorator =>
  ValidateBy({
    name: 'isEcP256PublicKey',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isEcP256PublicKey(value),
      defaultMessage: () => EC_P256_KEY_MESSAGE,
    },
  });

/**
 * A pass that terminals read over NFC: Apple's Value Added Services (pass.json `nfc`) and
 * Google's Smart Tap (the class's `enableSmartTap` and `redemptionIssuers`, each object's
 * `smartTapRedemptionValue`). Terminals read it only when the pass type certificate carries
 * Apple's NFC entitlement and the Google issuer has Smart Tap enabled.
 */
export class NfcDto {
  @ApiProperty({
    example: 'MEMBER-10442',
    description:
      'What the phone hands the terminal (a member or ticket number): 1–64 bytes of UTF-8. ' +
      "A holder's own `nfcMessage` replaces it in their copy on both wallets. WalletB's Smart " +
      'Tap carries ASCII only: a message with other characters reaches WalletA terminals only.',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @IsNfcMessage()
  message!: string;

  @ApiProperty({
    example:
      'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEf8yXaSbsLQnMpZfwO/uhdk3ywbSsv1zEDYgIfQmWR7U8TkI+EqaqXBvZmsClFS2pgY59uGVUkRzCr7LsE7gAbw==',
    description:
      "The terminal's public key: Base64 of a DER X.509 SubjectPublicKeyInfo holding an EC " +
      'P-256 key (the body of its PEM, without the BEGIN/END lines). The terminal keeps the ' +
      'private key; the phone encrypts the message to it. Public: shown in responses as given.',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @IsEcP256PublicKey()
  encryptionPublicKey!: string;

  @ApiPropertyOptional({
    default: false,
    description: 'Face ID or Touch ID before the phone sends the message (WalletA, iOS 13.1+).',
  })
  @IsOptional()
  @IsBoolean()
  requiresAuthentication?: boolean;
}
