import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { getMetadataStorage, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import {
  PRIVATE_APIS,
  installedVersion,
  requirePrivate,
  targetValidationMetadatas,
  transformerStorage,
  ValidationUtils,
} from '../../src/metadata/private-apis';

/*
 * class-validator and class-transformer export none of these; an upgrade may move them. These tests
 * fail with the path and the installed version, so the upgrade is fixed in one place.
 */
describe('private APIs of class-validator and class-transformer', () => {
  it.each(PRIVATE_APIS.filter((api) => !api.path.startsWith('(field)')))('$library/$path still exports what toolwright uses', (api) => {
    expect(() => requirePrivate(api.library, api.path, api.members)).not.toThrow();
  });

  it("class-validator's store still keeps its constraints in a Map keyed by class", () => {
    const map = (getMetadataStorage() as unknown as { validationMetadatas: unknown }).validationMetadatas;
    if (!(map instanceof Map)) {
      throw new Error(
        `class-validator@${installedVersion('class-validator')}: getMetadataStorage().validationMetadatas is no longer a Map; ` +
          'update src/metadata/private-apis.ts',
      );
    }
  });

  it('the loaded members are the functions toolwright calls', () => {
    expect(typeof ValidationUtils.replaceMessageSpecialTokens).toBe('function');
    for (const method of ['findTypeMetadata', 'findTransformMetadatas', 'findExcludeMetadata', 'getExposedMetadatas'] as const) {
      expect(typeof transformerStorage[method]).toBe('function');
    }
  });

  it('a moved path fails with a message naming the library, the path and the installed version', () => {
    const version = installedVersion('class-validator');
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const escaped = version.replace(/\./g, '\\.');
    expect(() => requirePrivate('class-validator', 'cjs/validation/MovedAway', ['ValidationUtils'])).toThrow(
      new RegExp(`class-validator's private "cjs/validation/MovedAway".*cannot be loaded.*class-validator@${escaped}`),
    );
    expect(() => requirePrivate('class-transformer', 'cjs/storage', ['renamedStorage'])).toThrow(
      /class-transformer's private "cjs\/storage", which no longer exports renamedStorage in the installed class-transformer@\d/,
    );
  });

  it('no other source file imports a private path of either library', () => {
    const root = path.resolve(__dirname, '../../src');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && !file.endsWith(path.join('metadata', 'private-apis.ts'))) {
          const text = fs.readFileSync(file, 'utf8');
          if (/['"`]class-(validator|transformer)\/(?!package\.json)/.test(text)) offenders.push(path.relative(root, file));
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});

describe('targetValidationMetadatas', () => {
  const decorators: Record<string, () => PropertyDecorator> = {
    isString: () => IsString(),
    minLength: () => MinLength(2),
    isInt: () => IsInt(),
    min: () => Min(1),
    max: () => Max(9),
    isOptional: () => IsOptional(),
    always: () => Min(3, { always: true }),
    grouped: () => Max(4, { groups: ['admin'] }),
  };
  const level = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.subarray(Object.keys(decorators), { minLength: 1 }), { maxKeys: 4 });

  it("answers exactly what class-validator's own lookup answers, over random inheritance chains", () => {
    fc.assert(
      fc.property(fc.array(level, { minLength: 1, maxLength: 4 }), (levels) => {
        let cls: new () => object = class {};
        const chain: Function[] = [];
        for (const properties of levels) {
          cls = class extends cls {};
          for (const [property, names] of Object.entries(properties)) for (const name of names) decorators[name]()(cls.prototype, property);
          chain.push(cls);
        }
        for (const target of chain) {
          const theirs = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
          const ours = targetValidationMetadatas(target);
          expect(ours).toHaveLength(theirs.length);
          ours.forEach((m, i) => expect(m).toBe(theirs[i]));
        }
      }),
      { seed: 8, numRuns: 200 },
    );
  });
});
