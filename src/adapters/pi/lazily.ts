// A value made on first need, once: a lazily imported module and what is built from it.

export interface Lazy<T> {
  /** The value, made by the first call. */
  get(): Promise<T>;
  /** The value once it is made; undefined before. */
  made(): T | undefined;
}

export function lazily<T>(make: () => Promise<T>): Lazy<T> {
  let value: T | undefined;
  let making: Promise<T> | undefined;
  const get = () => {
    making ??= make().then((made) => {
      value = made;
      return made;
    });
    return making;
  };
  return { get, made: () => value };
}
