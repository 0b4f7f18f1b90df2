import fc from 'fast-check';
import {
  ArrayContains,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotContains,
  ArrayNotEmpty,
  ArrayUnique,
  Contains,
  Equals,
  IsAlpha,
  IsAlphanumeric,
  IsBooleanString,
  IsDateString,
  IsDivisibleBy,
  IsEmail,
  IsEnum,
  IsHexColor,
  IsIn,
  IsIP,
  IsLatitude,
  IsLongitude,
  IsLowercase,
  IsMongoId,
  IsNegative,
  IsNotEmpty,
  IsNotIn,
  IsNumberString,
  IsPositive,
  IsUppercase,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  NotEquals,
} from 'class-validator';

/*
 * The constraints the differential tests against class-validator draw from (differential.test.ts,
 * agreement-deep.test.ts), per kind of property: each is a label (for the failure report) and its decorator.
 */

export type Decorated = [string, PropertyDecorator];

export enum Color {
  Red = 'red',
  Green = 'green',
}

export const small = fc.integer({ min: 0, max: 5 });
export const word = fc.constantFrom('a', 'ab', 'abc', 'A', 'x', 'root', 'red', '1', '', 'é');
export const regex = fc.constantFrom(/^[a-z]+$/, /[A-Z]/, /[0-9]/, /^a/, /b$/, /^\w{2,3}$/, /^[a-z]+$/i, /x/, /^.$/u, /^\S*$/);
export const c = (label: string, decorator: PropertyDecorator): fc.Arbitrary<Decorated> => fc.constant([label, decorator]);

export const STRING: fc.Arbitrary<Decorated>[] = [
  small.map((n) => [`MinLength(${n})`, MinLength(n)]),
  small.map((n) => [`MaxLength(${n})`, MaxLength(n)]),
  fc.tuple(small, small).map(([a, b]) => [`Length(${a}, ${a + b})`, Length(a, a + b)]),
  small.map((n) => [`Length(${n})`, Length(n)]),
  c('IsNotEmpty', IsNotEmpty()),
  regex.map((r) => [`Matches(${r})`, Matches(r)]),
  c('IsEmail', IsEmail()),
  fc.constantFrom('3', '4', '5', 'all', undefined).map((v) => [`IsUUID(${v})`, IsUUID(v as '4')]),
  c('IsUrl', IsUrl()),
  c('IsDateString', IsDateString()),
  c('IsAlpha', IsAlpha()),
  c('IsAlphanumeric', IsAlphanumeric()),
  c('IsUppercase', IsUppercase()),
  c('IsLowercase', IsLowercase()),
  c('IsHexColor', IsHexColor()),
  c('IsNumberString', IsNumberString()),
  c('IsBooleanString', IsBooleanString()),
  fc.constantFrom(4, 6, undefined).map((v) => [`IsIP(${v})`, IsIP(v as 4)]),
  c('IsMongoId', IsMongoId()),
  word.map((w) => [`Contains(${JSON.stringify(w)})`, Contains(w)]),
  word.map((w) => [`NotEquals(${JSON.stringify(w)})`, NotEquals(w)]),
  word.map((w) => [`Equals(${JSON.stringify(w)})`, Equals(w)]),
  fc.uniqueArray(word, { minLength: 1, maxLength: 3 }).map((ws) => [`IsIn(${JSON.stringify(ws)})`, IsIn(ws)]),
  fc.uniqueArray(word, { minLength: 1, maxLength: 3 }).map((ws) => [`IsNotIn(${JSON.stringify(ws)})`, IsNotIn(ws)]),
  c('IsEnum(Color)', IsEnum(Color)),
];

const bound = fc.oneof(fc.integer({ min: -3, max: 10 }), fc.constantFrom(0.5, -0.5, 2 ** 53, -(2 ** 53), 1e21));
export const NUMBER: fc.Arbitrary<Decorated>[] = [
  bound.map((n) => [`Min(${n})`, Min(n)]),
  bound.map((n) => [`Max(${n})`, Max(n)]),
  c('IsPositive', IsPositive()),
  c('IsNegative', IsNegative()),
  fc.integer({ min: 1, max: 7 }).map((n) => [`IsDivisibleBy(${n})`, IsDivisibleBy(n)]),
  fc.uniqueArray(fc.integer({ min: -2, max: 5 }), { minLength: 1, maxLength: 3 }).map((ns) => [`IsIn(${ns.join()})`, IsIn(ns)]),
  fc.uniqueArray(fc.integer({ min: -2, max: 5 }), { minLength: 1, maxLength: 3 }).map((ns) => [`IsNotIn(${ns.join()})`, IsNotIn(ns)]),
  fc.integer({ min: -2, max: 5 }).map((n) => [`NotEquals(${n})`, NotEquals(n)]),
  fc.integer({ min: -2, max: 5 }).map((n) => [`Equals(${n})`, Equals(n)]),
  c('IsLatitude', IsLatitude()),
  c('IsLongitude', IsLongitude()),
  c('IsNotEmpty', IsNotEmpty()),
];

export const STRINGS: fc.Arbitrary<Decorated>[] = [
  small.map((n) => [`ArrayMinSize(${n})`, ArrayMinSize(n)]),
  small.map((n) => [`ArrayMaxSize(${n})`, ArrayMaxSize(n)]),
  c('ArrayNotEmpty', ArrayNotEmpty()),
  c('ArrayUnique', ArrayUnique()),
  fc.uniqueArray(word, { minLength: 1, maxLength: 2 }).map((ws) => [`ArrayContains(${JSON.stringify(ws)})`, ArrayContains(ws)]),
  fc.uniqueArray(word, { minLength: 1, maxLength: 2 }).map((ws) => [`ArrayNotContains(${JSON.stringify(ws)})`, ArrayNotContains(ws)]),
  small.map((n) => [`MinLength(${n}, each)`, MinLength(n, { each: true })]),
  small.map((n) => [`MaxLength(${n}, each)`, MaxLength(n, { each: true })]),
  c('IsNotEmpty(each)', IsNotEmpty({ each: true })),
  fc.uniqueArray(word, { minLength: 1, maxLength: 3 }).map((ws) => [`IsIn(${JSON.stringify(ws)}, each)`, IsIn(ws, { each: true })]),
  fc.uniqueArray(word, { minLength: 1, maxLength: 3 }).map((ws) => [`IsNotIn(${JSON.stringify(ws)}, each)`, IsNotIn(ws, { each: true })]),
  regex.map((r) => [`Matches(${r}, each)`, Matches(r, { each: true })]),
  c('IsAlpha(each)', IsAlpha(undefined, { each: true })),
  c('IsEmail(each)', IsEmail(undefined, { each: true })),
  word.map((w) => [`NotEquals(${JSON.stringify(w)}, each)`, NotEquals(w, { each: true })]),
];

export const NUMBERS: fc.Arbitrary<Decorated>[] = [
  small.map((n) => [`ArrayMinSize(${n})`, ArrayMinSize(n)]),
  small.map((n) => [`ArrayMaxSize(${n})`, ArrayMaxSize(n)]),
  c('ArrayNotEmpty', ArrayNotEmpty()),
  c('ArrayUnique', ArrayUnique()),
  fc
    .uniqueArray(fc.integer({ min: -2, max: 5 }), { minLength: 1, maxLength: 2 })
    .map((ns) => [`ArrayContains(${ns.join()})`, ArrayContains(ns)]),
  bound.map((n) => [`Min(${n}, each)`, Min(n, { each: true })]),
  bound.map((n) => [`Max(${n}, each)`, Max(n, { each: true })]),
  c('IsPositive(each)', IsPositive({ each: true })),
  c('IsNegative(each)', IsNegative({ each: true })),
  fc.integer({ min: 1, max: 4 }).map((n) => [`IsDivisibleBy(${n}, each)`, IsDivisibleBy(n, { each: true })]),
  fc
    .uniqueArray(fc.integer({ min: -2, max: 5 }), { minLength: 1, maxLength: 3 })
    .map((ns) => [`IsIn(${ns.join()}, each)`, IsIn(ns, { each: true })]),
];
