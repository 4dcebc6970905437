import { ValidateBy, type ValidationArguments, type ValidationOptions } from 'class-validator';

/**
 * The most common passwords of the published breach lists (SecLists' top lists, NCSC's
 * "100,000 most common") that are long enough to pass our length rules (8 characters for a
 * member, 12 for a changed password), plus the obvious ones for this product. A short list on
 * purpose: it stops the first guesses of every password-spraying run, not a dictionary attack,
 * which the sign-in throttle is for. Compared case-insensitively.
 */
const COMMON_PASSWORDS = new Set([
  '12345678',
  '123456789',
  '1234567890',
  '12345678910',
  '123456789012',
  '11111111',
  '111111111111',
  '00000000',
  '87654321',
  '987654321',
  '123123123',
  '123123123123',
  '1q2w3e4r',
  '1q2w3e4r5t',
  '1q2w3e4r5t6y',
  '1qaz2wsx',
  '1qaz2wsx3edc',
  'zaq12wsx',
  'qazwsxedc',
  'qwertyui',
  'qwertyuiop',
  'qwerty123',
  'qwerty1234',
  'qwerty12345',
  'qwerty123456',
  'asdfghjkl',
  'asdfasdf',
  'zxcvbnm1',
  'abcd1234',
  'abc12345',
  'abc123456',
  'aa123456',
  'a1b2c3d4',
  'password',
  'password1',
  'password12',
  'password123',
  'password1234',
  'password12345',
  'password123!',
  'passwordpassword',
  'passw0rd',
  'p@ssw0rd',
  'p@ssword',
  'p@ssword1',
  'p@ssw0rd123',
  'iloveyou',
  'iloveyou1',
  'iloveyou123',
  'sunshine',
  'princess',
  'football',
  'baseball',
  'superman',
  'starwars',
  'whatever',
  'computer',
  'trustno1',
  'letmein1',
  'letmein123',
  'welcome1',
  'welcome123',
  'changeme',
  'changeme123',
  'administrator',
  'admin123',
  'admin1234',
  'admin12345',
  'adminadmin',
  'administrator1',
  'secret123',
  'mypassword',
  'default1',
  'test1234',
  'testtest',
  'master123',
  'monkey123',
  'dragon123',
  'wallet123',
  'walletpass',
  'wallet-pass',
]);

/** Why a password is too weak to set, or null when it may be used. */
export function weakPasswordReason(password: string, email?: string): string | null {
  // JavaScript's \s covers Unicode spaces too (no-break, ideographic, ...).
  if (/^\s*$/.test(password)) return 'must not be blank';
  const folded = password.trim().toLowerCase();
  if (COMMON_PASSWORDS.has(folded)) return 'is one of the most common passwords';
  if (/^(.)\1*$/su.test(folded)) return 'must not be one character repeated';
  if (email !== undefined) {
    const address = email.trim().toLowerCase();
    if (folded === address || folded === address.split('@')[0]) {
      return 'must not be the e-mail address';
    }
  }
  return null;
}

/**
 * Refuses the weakest passwords (see {@link weakPasswordReason}); with `emailField`, also the
 * e-mail address given in the same body.
 */
export const NotWeakPassword = (
  emailField?: string,
  options?: ValidationOptions,
): PropertyDecorator =>
  ValidateBy(
    {
      name: 'notWeakPassword',
      validator: {
        validate: (value: unknown, args?: ValidationArguments) =>
          typeof value === 'string' &&
          weakPasswordReason(value, emailOf(args, emailField)) === null,
        defaultMessage: (args?: ValidationArguments) =>
          typeof args?.value === 'string'
            ? (weakPasswordReason(args.value, emailOf(args, emailField)) ?? 'is too weak')
            : 'is too weak',
      },
    },
    options,
  );

function emailOf(args: ValidationArguments | undefined, field: string | undefined) {
  if (field === undefined || args === undefined) return undefined;
  const value = (args.object as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}
