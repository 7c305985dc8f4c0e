/** The shape of `Signer.forPurpose(...)` from '@app/common': signs a payload with its expiry inside the token. */
export interface UrlSigner {
  sign(payload: string, expiresAt?: Date): string;
  /** The payload of a genuine, unexpired token; `null` for anything else. */
  verify(token: string): string | null;
}
