/** The object was expected but the store does not have it. */
export class StoredObjectMissingError extends Error {
  constructor(objectKey: string) {
    super(`Stored object ${objectKey} is missing`);
    this.name = 'StoredObjectMissingError';
  }
}

// Keys are made by FilesService from random ids; anything else reaching a backend is a bug, refused
// here so that no key can ever walk out of the storage root or prefix.
const OBJECT_KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

export function assertObjectKey(objectKey: string): string {
  if (!OBJECT_KEY.test(objectKey)) throw new Error(`Refusing malformed object key ${JSON.stringify(objectKey)}`);
  return objectKey;
}
