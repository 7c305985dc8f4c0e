import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  NoSuchKey,
  NoSuchUpload,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';
import type { Readable } from 'node:stream';
import type { ByteRange, FileStorage, SignedUrlOptions, StoredObject } from './file-storage.js';
import { assertObjectKey, StoredObjectMissingError } from './object-keys.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server (MinIO, Ceph, R2, ...); AWS itself without it. */
  endpoint?: string;
  /** The address clients reach the store at, when it differs from `endpoint` (a container network name, say). */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Prepended to every object key, so that one bucket can serve several deployments. */
  prefix: string;
}

// Parts held in memory: S3's minimum part size, two in flight (plus the one being filled), so that a
// 1 GiB upload's footprint stays flat and well under 64 MB.
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
// S3 presigned URLs are valid for at most seven days.
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

function clientConfig(options: S3StorageOptions, endpoint: string | undefined): S3ClientConfig {
  return {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(endpoint ? { endpoint } : {}),
    ...(options.accessKeyId && options.secretAccessKey ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } } : {}),
    // Checksums only where the API demands them: S3-compatible servers do not all speak the newer
    // flexible-checksum trailers, and the upload is hashed (SHA-256) on our side anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/** Objects in an S3 bucket: multipart uploads for large bodies, presigned GETs for downloads. */
export class S3Storage implements FileStorage {
  readonly backend = 's3' as const;
  private readonly client: S3Client;
  private readonly presignClient: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client(clientConfig(options, options.endpoint));
    this.presignClient = options.publicEndpoint ? new S3Client(clientConfig(options, options.publicEndpoint)) : this.client;
  }

  private key(objectKey: string): string {
    return `${this.options.prefix}${assertObjectKey(objectKey)}`;
  }

  localPath(): undefined {
    return undefined;
  }

  async put(objectKey: string, body: Readable): Promise<void> {
    // lib-storage aborts the multipart upload when the body fails (leavePartsOnError: false), so a
    // cut upload leaves no parts billed in the bucket; a small body is one PutObject or nothing.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.key(objectKey), Body: body, ContentType: 'application/octet-stream' },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async get(objectKey: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: this.key(objectKey),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) {
        throw new StoredObjectMissingError(objectKey);
      }
      throw error;
    }
  }

  async delete(objectKey: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(objectKey) }));
  }

  async *listObjects(): AsyncIterable<StoredObject> {
    const { bucket: Bucket, prefix } = this.options;
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        if (object.Key && object.LastModified) yield { objectKey: object.Key.slice(prefix.length), modifiedAt: object.LastModified, size: object.Size ?? 0 };
      }
    }
  }

  /**
   * Aborts the multipart uploads under the prefix not written to since `writtenBefore` (started
   * before it, and no part uploaded after it): what a process killed mid-upload leaves (lib-storage
   * aborts the upload itself when only the body fails). S3 keeps, and bills, their parts until
   * someone does. A slow upload that has run longer than the grace still sends parts, so it is left
   * alone, as a local `.part` still written to is. A bucket lifecycle rule
   * (AbortIncompleteMultipartUpload) does the like on AWS, by start time only.
   */
  async removeLeftoverUploads(writtenBefore: Date): Promise<number> {
    const { bucket: Bucket, prefix: Prefix } = this.options;
    let removed = 0;
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await this.client.send(new ListMultipartUploadsCommand({ Bucket, Prefix, ...markers }));
      for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
        if (!Key || !UploadId || !Initiated || Initiated >= writtenBefore) continue;
        try {
          const lastPart = await this.lastPartWritten(Key, UploadId);
          if (lastPart && lastPart >= writtenBefore) continue;
          await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
          removed++;
        } catch (error) {
          // Completed or aborted meanwhile, by the upload itself or by another instance's housekeeping.
          if (!(error instanceof NoSuchUpload)) throw error;
        }
      }
      if (!page.IsTruncated) return removed;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  /** When the newest part of a multipart upload was uploaded; undefined when it has none. */
  private async lastPartWritten(Key: string, UploadId: string): Promise<Date | undefined> {
    let newest: Date | undefined;
    let PartNumberMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(new ListPartsCommand({ Bucket: this.options.bucket, Key, UploadId, PartNumberMarker }));
      for (const { LastModified } of page.Parts ?? []) if (LastModified && (!newest || LastModified > newest)) newest = LastModified;
      if (!page.IsTruncated) return newest;
      PartNumberMarker = page.NextPartNumberMarker;
    }
  }

  async signedReadUrl(objectKey: string, { filename, mime, expiresAt }: SignedUrlOptions): Promise<string> {
    const seconds = Math.ceil((expiresAt.getTime() - Date.now()) / 1000);
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: this.key(objectKey),
      ResponseContentDisposition: contentDisposition(filename, { type: 'attachment' }),
      ResponseContentType: mime,
    });
    return getSignedUrl(this.presignClient, command, { expiresIn: Math.min(Math.max(seconds, 1), MAX_PRESIGN_SECONDS) });
  }

  /** Closes the HTTP agents, so that a stopping app leaves no sockets open. */
  destroy(): void {
    this.client.destroy();
    if (this.presignClient !== this.client) this.presignClient.destroy();
  }
}
