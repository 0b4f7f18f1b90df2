/**
 * Builds the CLI (src/cli/main.ts and what it imports, MCP included) with the build tsconfig into
 * .toolwright/ (git-ignored, inside the repo so node_modules resolve), so tests run the compiled
 * `cli/main.js` exactly as `npx toolwright` would, without touching dist/. The fixture tools module
 * is compiled alongside (as a user's compiled config would be), so most subprocesses skip ts-node;
 * the tests that cover `.ts` modules load the TypeScript source.
 *
 * The build is keyed by a hash of every source it could depend on, shared between test files
 * (a lock file makes a second caller wait for the first) and reused while nothing changed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
const CACHE = join(ROOT, '.toolwright');

export interface BuiltCli {
  /** Absolute path of the compiled entry point (`dist/cli/main.js` in a package build). */
  main: string;
  /** The compiled tests/fixtures/toolwright.config.js. */
  fixture: string;
  /** The compiled tests/fixtures/policy.config.js (tools behind every kind of policy). */
  policyFixture: string;
  /** The compiled tests/fixtures/remote-policy.config.js (the policy tools and remote MCP tools behind the same policies). */
  remotePolicyFixture: string;
  /** The compiled tests/fixtures/hostile.config.js (texts with terminal escape sequences). */
  hostileFixture: string;
  /** The compiled tests/fixtures/features.config.js (resources, templates and prompts). */
  featuresFixture: string;
  /** The compiled tests/fixtures/studio-agent.config.js (exports an `agent`). */
  studioAgentFixture: string;
}

export function buildCli(): BuiltCli {
  const target = join(CACHE, `cli-build-${sourceHash()}`);
  const built: BuiltCli = {
    main: join(target, 'src', 'cli', 'main.js'),
    fixture: join(target, 'tests', 'fixtures', 'toolwright.config.js'),
    policyFixture: join(target, 'tests', 'fixtures', 'policy.config.js'),
    remotePolicyFixture: join(target, 'tests', 'fixtures', 'remote-policy.config.js'),
    hostileFixture: join(target, 'tests', 'fixtures', 'hostile.config.js'),
    featuresFixture: join(target, 'tests', 'fixtures', 'features.config.js'),
    studioAgentFixture: join(target, 'tests', 'fixtures', 'studio-agent.config.js'),
  };
  if (existsSync(join(target, 'ok'))) return built;
  mkdirSync(CACHE, { recursive: true });
  const lock = `${target}.lock`;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (existsSync(join(target, 'ok'))) return built;
      if (isStale(lock)) rmSync(lock, { force: true });
      else sleep(250);
    }
  }
  try {
    if (!existsSync(join(target, 'ok'))) compile(target);
    return built;
  } finally {
    rmSync(lock, { force: true });
  }
}

function compile(target: string): void {
  const work = `${target}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.build.json'),
      compilerOptions: { outDir: work, rootDir: ROOT, declaration: false, sourceMap: false, incremental: false },
      files: [
        join(ROOT, 'src/cli/main.ts'),
        join(ROOT, 'tests/fixtures/toolwright.config.ts'),
        join(ROOT, 'tests/fixtures/policy.config.ts'),
        join(ROOT, 'tests/fixtures/remote-policy.config.ts'),
        join(ROOT, 'tests/fixtures/hostile.config.ts'),
        join(ROOT, 'tests/fixtures/features.config.ts'),
        join(ROOT, 'tests/fixtures/studio-agent.config.ts'),
      ],
      include: [],
    }),
  );
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(work, 'tsconfig.json')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (tsc.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`Building the CLI failed (tsc exit ${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);
  }
  // The studio's page files are not TypeScript: copied as the package build copies them.
  cpSync(join(ROOT, 'src/studio/ui'), join(work, 'src/studio/ui'), { recursive: true });
  writeFileSync(join(work, 'ok'), new Date().toISOString());
  rmSync(target, { recursive: true, force: true });
  renameSync(work, target);
  pruneOldBuilds(target);
}

/** Builds of sources that changed since: removed after a day (never one a concurrent run may still use). */
function pruneOldBuilds(keep: string): void {
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (!name.startsWith('cli-build-') || path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > 24 * 3_600_000) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

/** Every input of the build: all of src (the CLI's import graph is most of it), the fixture, the configs. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...walk(join(ROOT, 'src')),
    join(ROOT, 'tests/fixtures/toolwright.config.ts'),
    join(ROOT, 'tests/fixtures/policy.config.ts'),
    join(ROOT, 'tests/fixtures/remote-policy.config.ts'),
    join(ROOT, 'tests/fixtures/hostile.config.ts'),
    join(ROOT, 'tests/fixtures/features.config.ts'),
    join(ROOT, 'tests/fixtures/studio-agent.config.ts'),
    join(ROOT, 'tests/support/feature-fixtures.ts'),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'tsconfig.build.json'),
  ];
  for (const file of files.sort()) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return /\.(ts|js|html|css)$/.test(entry.name) ? [path] : [];
  });
}

function isStale(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs > 5 * 60_000;
  } catch {
    return false;
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
