import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { createJiti } from 'jiti';
import type * as TypeScript from 'typescript';

type Jiti = ReturnType<typeof createJiti>;
type TransformOptions = Parameters<NonNullable<NonNullable<Parameters<typeof createJiti>[1]>['transform']>>[0];
import { ToolwrightError } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import { CliError, EXIT } from './errors';

export const DEFAULT_MODULES = ['toolwright.config.ts', 'toolwright.config.js'];

const EXPORT_HINT =
  'Export it as `export const registry = ToolRegistry.build({ tools: [...] })`, or as the default export ' +
  '(a ToolRegistry, or a function returning one).';

/**
 * Loads the module named by `--module` (or the default `toolwright.config.ts`/`.js` in `cwd`) and
 * returns the ToolRegistry it exports: `registry`, the default export, or what a default-exported
 * function returns. Modules are loaded with jiti, in CommonJS and ESM apps alike (`.ts`, `.mts`,
 * `.cts`, `.js`-suffixed imports of `.ts` files, top-level await), TypeScript compiled by the app's
 * own `typescript` with decorator metadata on.
 */
/** The registries this process loaded, closed when the command is done (remote tool sources hold connections). */
const loaded = new Set<ToolRegistry>();

export async function closeLoadedRegistries(): Promise<void> {
  const all = [...loaded];
  loaded.clear();
  await Promise.allSettled(all.map((registry) => registry.close()));
}

export async function loadRegistry(modulePath: string | undefined, cwd: string): Promise<ToolRegistry> {
  const { mod, shown } = await importModule(modulePath, cwd);
  return registryOf(mod, shown);
}

/** What `toolwright studio` shows: the module's `agent` (an Agent, or a function returning one) when it exports one, else its registry. */
export async function loadStudioTarget(modulePath: string | undefined, cwd: string): Promise<{ registry: ToolRegistry; agent?: unknown }> {
  const { mod, shown } = await importModule(modulePath, cwd);
  let agent: unknown = mod.agent ?? (isRecord(mod.default) ? mod.default.agent : undefined);
  if (typeof agent === 'function' && !isAgent(agent)) agent = await produce(agent as () => unknown, shown, 'agent');
  if (agent !== undefined && isAgent(agent)) {
    loaded.add(agent.registry);
    return { registry: agent.registry, agent };
  }
  return { registry: await registryOf(mod, shown) };
}

async function importModule(modulePath: string | undefined, cwd: string): Promise<{ mod: Record<string, unknown>; shown: string }> {
  const file = findModule(modulePath, cwd);
  const shown = relative(cwd, file) || file;
  try {
    return { mod: await loader(file).import<Record<string, unknown>>(file), shown };
  } catch (error) {
    if (error instanceof CliError) throw error;
    const detail =
      error instanceof ToolwrightError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    throw new CliError('MODULE_LOAD_FAILED', `Loading ${shown} failed: ${detail}`, EXIT.MODULE, { cause: error });
  }
}

async function produce(fn: () => unknown, shown: string, what: string): Promise<unknown> {
  try {
    return await fn();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CliError('MODULE_LOAD_FAILED', `The ${what} export of ${shown} threw while creating it: ${detail}`, EXIT.MODULE, {
      cause: error,
    });
  }
}

async function registryOf(mod: Record<string, unknown>, shown: string): Promise<ToolRegistry> {
  let candidate: unknown = mod.registry ?? mod.default;
  if (isRecord(candidate) && !isRegistry(candidate) && 'registry' in candidate) candidate = candidate.registry;
  if (typeof candidate === 'function' && !isRegistry(candidate)) {
    try {
      candidate = await (candidate as () => unknown)();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new CliError('MODULE_LOAD_FAILED', `The default export of ${shown} threw while creating the registry: ${detail}`, EXIT.MODULE, {
        cause: error,
      });
    }
  }
  if (!isRegistry(candidate)) {
    // The loader adds `default` (the exports themselves) to a CommonJS module, and Node 24's
    // `module.exports`: not names the module chose.
    const names = Object.keys(mod).filter(
      (k) =>
        k !== '__esModule' &&
        k !== 'module.exports' &&
        !(
          k === 'default' &&
          isRecord(mod.default) &&
          Object.keys(mod.default).every((n) => (mod.default as Record<string, unknown>)[n] === mod[n])
        ),
    );
    throw new CliError(
      'NO_REGISTRY',
      `${shown} does not export a ToolRegistry (exports: ${names.length ? names.join(', ') : 'none'}). ${EXPORT_HINT}`,
      EXIT.MODULE,
    );
  }
  loaded.add(candidate);
  return candidate;
}

function findModule(modulePath: string | undefined, cwd: string): string {
  if (modulePath !== undefined) {
    const file = isAbsolute(modulePath) ? modulePath : resolve(cwd, modulePath);
    if (!existsSync(file)) {
      throw new CliError(
        'MODULE_NOT_FOUND',
        `Module not found: ${file}. Check the --module path (relative paths start at ${cwd}).`,
        EXIT.MODULE,
      );
    }
    return file;
  }
  for (const name of DEFAULT_MODULES) {
    const file = resolve(cwd, name);
    if (existsSync(file)) return file;
  }
  throw new CliError(
    'MODULE_NOT_FOUND',
    `No tools module: found neither ${DEFAULT_MODULES.map((n) => `./${n}`).join(' nor ')} in ${cwd}. ` +
      `Create one that exports your registry, or pass --module <path>. ${EXPORT_HINT}`,
    EXIT.MODULE,
  );
}

let jiti: Jiti | undefined;

/**
 * jiti (module resolution, CommonJS/ESM interop, `.js` → `.ts` imports) with TypeScript itself as
 * the compiler: jiti's default Babel transform has no `emitDecoratorMetadata`, which typedi and
 * toolwright's schemas read.
 */
function loader(file: string): Jiti {
  if (jiti) return jiti;
  let ts: typeof TypeScript | undefined;
  const compile = (opts: TransformOptions) => {
    ts ??= loadTypeScript(file);
    const { outputText } = ts.transpileModule(opts.source, {
      // jiti evaluates CommonJS; a .mts/.cts name would make TypeScript pick the module format itself.
      fileName: opts.filename?.replace(/\.[mc]([jt]sx?)$/, '.$1'),
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        useDefineForClassFields: false,
        jsx: ts.JsxEmit.React,
      },
    });
    return { code: outputText };
  };
  // A cache of our own: another tool's jiti cache holds the same files compiled without decorator metadata.
  jiti = createJiti(file, { fsCache: join(tmpdir(), 'toolwright-jiti'), interopDefault: false, transform: compile });
  return jiti;
}

/** The app's own TypeScript (resolved from the module), else the one toolwright can find. */
function loadTypeScript(file: string): typeof TypeScript {
  let apiless: string | undefined;
  for (const from of [file, __filename]) {
    let ts: Partial<typeof TypeScript>;
    try {
      ts = createRequire(from)('typescript') as Partial<typeof TypeScript>;
    } catch {
      continue; // try the next place
    }
    // TypeScript 7 (the native compiler) has no JavaScript API at its root: only `version`.
    if (typeof ts.transpileModule === 'function') return ts as typeof TypeScript;
    apiless ??= ts.version ?? 'unknown';
  }
  if (apiless !== undefined) {
    throw new CliError(
      'TYPESCRIPT_MISSING',
      `Loading ${file} needs TypeScript's JavaScript API (transpileModule) to compile it with decorator metadata, and typescript ${apiless} ` +
        `(TypeScript 7, the native compiler) has none. Compile it with tsc (which supports the decorators) and pass the .js file ` +
        `with --module (npx tsc && npx toolwright list --module out/toolwright.config.js), or use typescript@6 as the app's typescript package.`,
      EXIT.MODULE,
    );
  }
  throw new CliError(
    'TYPESCRIPT_MISSING',
    `Loading ${file} (TypeScript) needs the typescript package: npm install --save-dev typescript. Or compile it and pass the .js file with --module.`,
    EXIT.MODULE,
  );
}

/** Duck-typed, as registries are. */
function isAgent(value: unknown): value is { registry: ToolRegistry; stream: unknown } {
  return isRecord(value) && typeof value.stream === 'function' && typeof value.run === 'function' && isRegistry(value.registry);
}

/** Duck-typed: the module may load toolwright from another path (src vs dist, a nested install). */
function isRegistry(value: unknown): value is ToolRegistry {
  return (
    (isRecord(value) || typeof value === 'function') &&
    ['call', 'definitions', 'names', 'tools', 'describe'].every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
