import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Omittable } from '@app/common';
import type { StorageCheckReport } from '../storage-check.js';

export class StorageCheckQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    default: 'false',
    description: "Also compare each object's SHA-256 with its file's: reads every byte of the storage",
  })
  @Omittable()
  @IsIn(['true', 'false'], { message: 'digests must be true or false' })
  digests?: 'true' | 'false';
}

class MissingObjectDto {
  @ApiProperty() fileKey: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty() objectKey: string;
}

class MissingObjectsDto {
  @ApiProperty({ description: 'How many files lack their object' }) count: number;
  @ApiProperty({ type: [MissingObjectDto], description: 'The first 100 of them' }) files: MissingObjectDto[];
}

class OrphanObjectDto {
  @ApiProperty() objectKey: string;
  @ApiProperty({ description: 'Size in bytes' }) size: number;
  @ApiProperty({ format: 'date-time' }) modifiedAt: string;
}

class OrphanObjectsDto {
  @ApiProperty({ description: 'How many objects no file points to' }) count: number;
  @ApiProperty({ type: [OrphanObjectDto], description: 'The first 100 of them' }) objects: OrphanObjectDto[];
}

class MismatchedObjectDto {
  @ApiProperty() fileKey: string;
  @ApiProperty() objectKey: string;
  @ApiProperty({ example: 'size 10, recorded 12' }) problem: string;
}

class MismatchedObjectsDto {
  @ApiProperty({ description: 'How many objects differ from what their file recorded at upload' }) count: number;
  @ApiProperty({ type: [MismatchedObjectDto], description: 'The first 100 of them' }) files: MismatchedObjectDto[];
}

export class StorageCheckReportDto implements StorageCheckReport {
  @ApiProperty({ description: 'Files checked (those not being deleted)' }) files: number;
  @ApiProperty({ description: 'Objects the storage holds' }) objects: number;
  @ApiProperty() digestsChecked: boolean;
  @ApiProperty({ type: MissingObjectsDto, description: 'Files whose object the storage lacks' }) missing: MissingObjectsDto;
  @ApiProperty({
    type: OrphanObjectsDto,
    description:
      'Objects no file points to: an upload under way, what a crash left (removed after FILES_CLEANUP_GRACE), or copies restored from different moments',
  })
  orphans: OrphanObjectsDto;
  @ApiProperty({ type: MismatchedObjectsDto, description: 'Files whose object has another size, or another SHA-256 when `digests=true`' })
  mismatched: MismatchedObjectsDto;
}
