import { Injectable } from '@nestjs/common';
import { UserDataContributor, type UserDataContributorShape } from '@app/common';
import { FilesService } from './files.service.js';
import { FileViewDto } from './http/file-view.dto.js';

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
        // The REST view of the file, plus what only an export carries: the text read from it and a download link.
        return { ...FileViewDto.of(file), extractedText: file.extractedText, download: { url, expiresAt: expiresAt.toISOString() } };
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
