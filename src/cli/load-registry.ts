import { existsSync } from 'node:fs';
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import { ToolwrightError } from '../errors/errors';
import type { ToolRegistry } from '../registry/tool-registry';
import { CliError, EXIT } from './errors';

export const DEFAULT_MODULES = ['toolwright.config.ts', 'toolwright.config.js'];

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

const EXPORT_HINT =
  'Export it as `export const registry = ToolRegistry.build({ tools: [...] })`, or as the default export ' +
  '(a ToolRegistry, or a function returning one).';

/**
 * Loads the module named by `--module` (or the default `toolwright.config.ts`/`.js` in `cwd`) and
 * returns the ToolRegistry it exports: `registry`, the default export, or what a default-exported
 * function returns. `.ts` modules are loaded through ts-node (transpile-only).
 */
export async function loadRegistry(modulePath: string | undefined, cwd: string): Promise<ToolRegistry> {
  const file = findModule(modulePath, cwd);
  const shown = relative(cwd, file) || file;
  if (TS_EXTENSIONS.has(extname(file))) registerTsNode(file);

  let mod: Record<string, unknown>;
  try {
    mod = require(file) as Record<string, unknown>;
  } catch (error) {
    const detail = error instanceof ToolwrightError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    throw new CliError('MODULE_LOAD_FAILED', `Loading ${shown} failed: ${detail}`, EXIT.MODULE, { cause: error });
  }

  let candidate: unknown = mod.registry ?? mod.default;
  if (isRecord(candidate) && !isRegistry(candidate) && 'registry' in candidate) candidate = candidate.registry;
  if (typeof candidate === 'function' && !isRegistry(candidate)) {
    try {
      candidate = await (candidate as () => unknown)();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new CliError('MODULE_LOAD_FAILED', `The default export of ${shown} threw while creating the registry: ${detail}`, EXIT.MODULE, { cause: error });
    }
  }
  if (!isRegistry(candidate)) {
    const names = Object.keys(mod).filter((k) => k !== '__esModule');
    throw new CliError(
      'NO_REGISTRY',
      `${shown} does not export a ToolRegistry (exports: ${names.length ? names.join(', ') : 'none'}). ${EXPORT_HINT}`,
      EXIT.MODULE,
    );
  }
  return candidate;
}

function findModule(modulePath: string | undefined, cwd: string): string {
  if (modulePath !== undefined) {
    const file = isAbsolute(modulePath) ? modulePath : resolve(cwd, modulePath);
    if (!existsSync(file)) {
      throw new CliError('MODULE_NOT_FOUND', `Module not found: ${file}. Check the --module path (relative paths start at ${cwd}).`, EXIT.MODULE);
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

let tsNodeRegistered = false;

/** ts-node, transpile-only, with the compiler options toolwright's decorators need. */
function registerTsNode(file: string): void {
  if (tsNodeRegistered) return;
  let tsNode: { register(options: object): unknown };
  try {
    tsNode = require('ts-node') as typeof tsNode;
  } catch {
    throw new CliError(
      'TS_NODE_MISSING',
      `Loading ${file} (TypeScript) needs ts-node: npm install --save-dev ts-node. Or compile it and pass the .js file with --module.`,
      EXIT.MODULE,
    );
  }
  tsNode.register({
    transpileOnly: true,
    projectSearchDir: dirname(file),
    compilerOptions: { module: 'commonjs', experimentalDecorators: true, emitDecoratorMetadata: true },
  });
  tsNodeRegistered = true;
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
