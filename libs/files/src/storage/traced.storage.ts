import type { Readable } from 'node:stream';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Tracing } from '@app/common';
import type { ByteRange, FileStorage, SignedUrlOptions, StorageBackend, StoredObject } from './file-storage.js';

/**
 * A `FileStorage` whose calls that reach the disk or the object store (`put`, `get`, `delete`)
 * make a CLIENT span each (`storage put` ...) when they run inside a traced request; what it
 * does is the wrapped storage's. `get`'s span covers opening the object, not reading it.
 */
export class TracedFileStorage implements FileStorage {
  readonly backend: StorageBackend;

  constructor(
    private readonly storage: FileStorage,
    private readonly tracing: Tracing,
  ) {
    this.backend = storage.backend;
  }

  put(objectKey: string, body: Readable): Promise<void> {
    return this.traced('put', objectKey, () => this.storage.put(objectKey, body));
  }

  get(objectKey: string, range?: ByteRange): Promise<Readable> {
    return this.traced('get', objectKey, () => this.storage.get(objectKey, range));
  }

  delete(objectKey: string): Promise<void> {
    return this.traced('delete', objectKey, () => this.storage.delete(objectKey));
  }

  signedReadUrl(objectKey: string, options: SignedUrlOptions): Promise<string> {
    return this.storage.signedReadUrl(objectKey, options);
  }

  localPath(objectKey: string): string | undefined {
    return this.storage.localPath(objectKey);
  }

  listObjects(): AsyncIterable<StoredObject> {
    return this.storage.listObjects();
  }

  removeLeftoverUploads(writtenBefore: Date): Promise<number> {
    return this.storage.removeLeftoverUploads?.(writtenBefore) ?? Promise.resolve(0);
  }

  destroy(): void {
    this.storage.destroy?.();
  }

  private async traced<T>(operation: string, objectKey: string, call: () => Promise<T>): Promise<T> {
    if (!this.tracing.activeSpan()) return call();
    const attributes = { 'mirobody.storage.backend': this.backend, 'mirobody.storage.operation': operation, 'mirobody.storage.object_key': objectKey };
    const span = this.tracing.tracer.startSpan(`storage ${operation}`, { kind: SpanKind.CLIENT, attributes });
    try {
      return await call();
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.constructor.name : 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  }
}
