import type { Readable } from 'node:stream';

/** Inclusive byte positions, as in an HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object as the store lists it: its key, when it was last written and its size in bytes. */
export interface StoredObject {
  objectKey: string;
  modifiedAt: Date;
  size: number;
}

/** How a signed URL presents the object to whoever follows it. */
export interface SignedUrlOptions {
  filename: string;
  mime: string;
  expiresAt: Date;
}

export type StorageBackend = 'local' | 's3';

/**
 * Where file bodies live. Object keys are chosen by `FilesService` (random, never user input), so a
 * backend only has to keep them apart; it never decides who may read what.
 */
export interface FileStorage {
  readonly backend: StorageBackend;
  /**
   * Streams `body` into the object. Resolves once the whole object is durable; if the body fails or
   * is cut, rejects and leaves no object (and no partial upload) behind.
   */
  put(objectKey: string, body: Readable): Promise<void>;
  /** The object's bytes, or only `range` of them. */
  get(objectKey: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; removing one that is already gone is not an error. */
  delete(objectKey: string): Promise<void>;
  /** A URL anyone holding it can download the object from until `expiresAt`. */
  signedReadUrl(objectKey: string, options: SignedUrlOptions): Promise<string>;
  /** A path on this machine holding the object, when the backend keeps objects on local disk. */
  localPath(objectKey: string): string | undefined;
  /** Every object the store holds; for housekeeping (objects no row points to) and the storage check. */
  listObjects(): AsyncIterable<StoredObject>;
  /**
   * Removes what uploads cut off by a crash left behind (local disk: `incoming/*.part`; S3: multipart
   * uploads never completed) that has not been written since `writtenBefore`; returns how many. A
   * backend that leaves nothing has none.
   */
  removeLeftoverUploads?(writtenBefore: Date): Promise<number>;
  /** Releases what the backend holds open (an HTTP client's sockets); called once, when the app stops. */
  destroy?(): void;
}

/** Injection token for the configured `FileStorage`. */
export const FILE_STORAGE = Symbol('FILE_STORAGE');
