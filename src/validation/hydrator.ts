import type { ClassPlan, Conversion } from '../schema/class-schema';

/**
 * class-transformer's plainToInstance for one class, compiled into one function (as Ajv compiles
 * validators): `new Cls()` keeps field initializers, then each known property present and not
 * null is copied from its JSON key (`@Expose({ name })`), nested classes and Dates converted and
 * `@Transform`s applied; unknown keys never reach the instance. Names come from the class, never
 * from the input, and are embedded as JSON string literals. A value that is not an object is
 * returned as is (as plainToInstance does), for class-validator to report on an invalid input; so is an array
 * where the class is expected (the type error is reported once, not again for each property).
 */
export function compileHydrator(plan: ClassPlan): (plain: Record<string, unknown>) => object {
  const convert = plan.properties.map((p) => p.conversion && converterOf(p.conversion));
  const body = plan.properties.map((p, i) => {
    const key = JSON.stringify(p.key);
    const name = JSON.stringify(p.name);
    const read = p.ownOnly ? `hasOwn.call(plain, ${key}) ? plain[${key}] : undefined` : `plain[${key}]`;
    const converted = convert[i] ? `convert[${i}](v)` : 'v';
    if (p.transform) {
      // plainToInstance transforms the keys the input has, after converting their value.
      return `if (hasOwn.call(plain, ${key})) {\nv = plain[${key}];\nv = transform[${i}](v === undefined || v === null ? v : ${converted}, plain);\nif (v !== undefined && v !== null) o[${name}] = v;\n}`;
    }
    return `v = ${read};\nif (v !== undefined && v !== null) o[${name}] = ${converted};`;
  });
  const factory = new Function(
    'Cls',
    'convert',
    'transform',
    'hasOwn',
    `return function hydrate(plain) {\nif (plain === null || typeof plain !== 'object' || Array.isArray(plain)) return plain;\nconst o = new Cls();\nlet v;\n${body.join('\n')}\nreturn o;\n}`,
  );
  return factory(
    plan.cls,
    convert,
    plan.properties.map((p) => p.transform),
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the generated code calls it with .call(obj, key)
    Object.prototype.hasOwnProperty,
  );
}

/** One property's JSON value to what the instance holds: a Date, a nested instance, an array of either. */
function converterOf(conversion: Conversion): (value: unknown) => unknown {
  if (conversion.to === 'date') return (v) => new Date(v as string);
  if (conversion.to === 'class') return compileHydrator(conversion.plan) as (v: unknown) => unknown;
  const item = converterOf(conversion.item);
  return (v) => (Array.isArray(v) ? v.map(item) : v);
}
