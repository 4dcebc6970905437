/** True for the spec's Error body with the given code (the faults suites count these). */
export function isErrorBody(body: unknown, errorCode: string): boolean {
  const value = body as Record<string, unknown> | null;
  return (
    typeof value === 'object' &&
    value !== null &&
    value.errorCode === errorCode &&
    typeof value.txId === 'string' &&
    typeof value.timestamp === 'string' &&
    typeof value.errorMessage === 'string'
  );
}
