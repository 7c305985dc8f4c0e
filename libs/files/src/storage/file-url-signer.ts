import { Injectable } from '@nestjs/common';
import { Signer, type PurposeSigner } from '@app/common';
import type { UrlSigner } from './url-signer.js';

/** Signs local-disk download links with the server's signer, under a purpose of their own. */
@Injectable()
export class FileUrlSigner implements UrlSigner {
  private readonly signer: PurposeSigner;

  constructor(signer: Signer) {
    this.signer = signer.forPurpose('file-url');
  }

  sign(objectKey: string, expiresAt?: Date): string {
    return this.signer.sign(objectKey, expiresAt);
  }

  verify(token: string): string | null {
    return this.signer.verify(token);
  }
}
