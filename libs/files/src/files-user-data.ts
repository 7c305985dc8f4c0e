import { Injectable } from '@nestjs/common';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { FilesService } from './files.service.js';

/** A user's files in their export (with download links), erased with them, counted for admins. */
@Injectable()
@UserDataContributor('files')
export class FilesUserData implements UserDataContributorShape {
  constructor(private readonly files: FilesService) {}

  async exportFor(userId: string): Promise<unknown> {
    const files = await this.files.allOf(userId);
    return Promise.all(
      files.map(async (file) => {
        const { url, expiresAt } = await this.files.signedUrl(file);
        return {
          fileKey: file.fileKey,
          filename: file.filename,
          mime: file.mime,
          size: file.size,
          sha256: file.sha256,
          uploadedAt: file.createdAt.toISOString(),
          extractionStatus: file.extractionStatus,
          extractedText: file.extractedText,
          download: { url, expiresAt: expiresAt.toISOString() },
        };
      }),
    );
  }

  async eraseFor(userId: string): Promise<void> {
    await this.files.eraseAll(userId);
  }

  countFor(userId: string): Promise<number> {
    return this.files.countFor(userId);
  }
}
