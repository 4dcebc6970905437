/** APNs device tokens are hex; today 32 bytes, and Apple warns they may grow. */
const DEVICE_TOKEN = /^(?:[0-9a-fA-F]{2}){32,}$/;
const MAX_DEVICE_TOKEN_LENGTH = 400;

/** True for something shaped like an APNs device token (hex, at least 64 characters). */
export function isValidDeviceToken(token: string): boolean {
  return token.length <= MAX_DEVICE_TOKEN_LENGTH && DEVICE_TOKEN.test(token);
}
