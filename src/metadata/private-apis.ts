import { getMetadataStorage, type MetadataStorage } from 'class-validator';

/*
 * The ONLY module that reaches into class-validator's and class-transformer's private paths and
 * fields. Neither library exports these, so an upgrade may move them: each is loaded and checked
 * here, at import, and a move fails with one message naming the path, the installed version and
 * what to do, instead of an `undefined is not a function` deep inside a build or a call.
 * tests/metadata/private-apis.test.ts pins every entry.
 */

/** One class-validator constraint as its store keeps it (the type lives on a private path; derive it). */
export type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** The part of class-transformer's metadata store toolwright reads (`class-transformer/cjs/storage`). */
export interface TransformerStorage {
  findTypeMetadata(target: Function, propertyName: string): { typeFunction(options?: unknown): Function } | undefined;
  findTransformMetadatas(
    target: Function,
    propertyName: string,
    transformationType: number,
  ): { transformFn: Function; options?: { groups?: string[] } }[];
  findExcludeMetadata(target: Function, propertyName: string): { options?: TransformerDirection } | undefined;
  findExposeMetadata(target: Function, propertyName: string): { options?: TransformerDirection & { name?: string } } | undefined;
  getExposedMetadatas(target: Function): unknown[];
}

interface TransformerDirection {
  toPlainOnly?: boolean;
  toClassOnly?: boolean;
}

/** A class-validator constraint class's registration (the type lives on a private path; derive it). */
export type ConstraintMetadata = ReturnType<MetadataStorage['getTargetValidatorConstraints']>[number];

/** class-validator's message templating (`$property`, `$constraint1`, `$value`). */
export interface ValidationUtilsApi {
  replaceMessageSpecialTokens(message: unknown, args: object): string;
}

/** What a private path must provide, checked when it is loaded. */
export interface PrivateApi {
  library: 'class-validator' | 'class-transformer';
  /** Module path inside the library, or `(field)` for a private field of a public object. */
  path: string;
  /** The members toolwright uses. */
  members: readonly string[];
}

export const PRIVATE_APIS: readonly PrivateApi[] = Object.freeze([
  { library: 'class-transformer', path: 'cjs/storage', members: ['defaultMetadataStorage'] },
  { library: 'class-validator', path: 'cjs/validation/ValidationUtils', members: ['ValidationUtils'] },
  { library: 'class-validator', path: 'cjs/validation/ValidationExecutor', members: ['ValidationExecutor'] },
  { library: 'class-validator', path: '(field) getMetadataStorage().validationMetadatas', members: ['validationMetadatas'] },
]);

/** The installed version of a library, for the message (read from its package.json). */
export function installedVersion(library: string): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require(`${library}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The error an upgrade that moved a private API gets: says what moved, in which version, and what to do. */
export function privateApiMoved(library: string, path: string, detail: string): Error {
  return new Error(
    `toolwright relies on ${library}'s private "${path}", which ${detail} in the installed ${library}@${installedVersion(library)}. ` +
      `Install a ${library} version toolwright supports (see package.json) or update src/metadata/private-apis.ts for this one.`,
  );
}

/** Loads `library/path` and checks it exports `members`; throws `privateApiMoved` otherwise. */
export function requirePrivate<T>(library: string, path: string, members: readonly string[]): T {
  let loaded: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(`${library}/${path}`) as Record<string, unknown>;
  } catch (error) {
    throw privateApiMoved(library, path, `cannot be loaded (${(error as Error).message.split('\n')[0]})`);
  }
  const missing = members.filter((m) => loaded?.[m] === undefined);
  if (missing.length) throw privateApiMoved(library, path, `no longer exports ${missing.join(', ')}`);
  return loaded as T;
}

// class-transformer keeps @Type/@Transform/@Expose/@Exclude metadata in this module-level store.
export const transformerStorage: TransformerStorage = requirePrivate<{ defaultMetadataStorage: TransformerStorage }>(
  'class-transformer',
  'cjs/storage',
  ['defaultMetadataStorage'],
).defaultMetadataStorage;

export const ValidationUtils: ValidationUtilsApi = requirePrivate<{ ValidationUtils: ValidationUtilsApi }>(
  'class-validator',
  'cjs/validation/ValidationUtils',
  ['ValidationUtils'],
).ValidationUtils;

/** class-validator's store keeps constraints in a Map keyed by class; the public lookup scans all of it. */
function validationMetadataMap(storage: MetadataStorage): Map<Function | string, ValidationMetadata[]> {
  const map = (storage as unknown as { validationMetadatas?: unknown }).validationMetadatas;
  if (!(map instanceof Map)) {
    throw privateApiMoved('class-validator', '(field) getMetadataStorage().validationMetadatas', 'is no longer a Map keyed by class');
  }
  return map as Map<Function | string, ValidationMetadata[]>;
}
validationMetadataMap(getMetadataStorage());

/**
 * class-validator's constraints of a class, inherited ones included, exactly as its own
 * `getTargetValidationMetadatas(target, '', true, false)` answers — but in time proportional to the
 * class's inheritance chain. The public method tests every class ever decorated in the process
 * for `instanceof` (O(classes) per lookup, so building n tools cost O(n²)); here it runs on a view
 * of the store that holds only the chain's own entries, so its filtering and de-duplication stay
 * class-validator's.
 */
export function targetValidationMetadatas(target: Function): ValidationMetadata[] {
  const storage = getMetadataStorage();
  const all = validationMetadataMap(storage);
  const chain = new Map<Function, ValidationMetadata[]>();
  const ancestors: Function[] = [];
  for (let c = Object.getPrototypeOf(target) as Function | null; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    ancestors.unshift(c);
  }
  for (const c of [...ancestors, target]) {
    const own = all.get(c);
    if (own) chain.set(c, own);
  }
  const view = Object.create(storage, { validationMetadatas: { value: chain } }) as MetadataStorage;
  return storage.getTargetValidationMetadatas.call(view, target, '', true, false);
}

/** class-validator's validation engine, which its index does not export (run on a per-class store, see metadata.ts). */
export const ValidationExecutor: Function = requirePrivate<{ ValidationExecutor: Function }>(
  'class-validator',
  'cjs/validation/ValidationExecutor',
  ['ValidationExecutor'],
).ValidationExecutor;

/** The constraint classes behind a `@Validate`/`registerDecorator` metadata, from class-validator's global store. */
export function getValidatorConstraints(constraintCls: Function): ConstraintMetadata[] {
  return getMetadataStorage().getTargetValidatorConstraints(constraintCls);
}
