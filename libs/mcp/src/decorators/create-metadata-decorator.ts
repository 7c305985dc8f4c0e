/** Stores `metadata` under `key` on the decorated method, and nothing else. */
export function createMethodDecorator<T>(key: string, metadata: T): MethodDecorator {
  return (_target, _propertyKey, descriptor) => {
    Reflect.defineMetadata(key, metadata, descriptor.value as object);
    return descriptor;
  };
}

/** Appends `entry` to the list stored under `key` for a method of `target`. */
export function appendToMethodList<T>(key: string, target: object, propertyKey: string | symbol, entry: T): void {
  const list: T[] = Reflect.getOwnMetadata(key, target, propertyKey) ?? [];
  Reflect.defineMetadata(key, [...list, entry], target, propertyKey);
}
