/**
 * The house rules of eslint.layers.mjs, run the way `npm run lint` runs them: an import planted
 * across a floor, a planted cycle and an oversized file each fail; src itself keeps them all.
 * ESLint and madge run in a child process (the config is an ES module; jest's runtime is CommonJS).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

interface Finding {
  file: string;
  rule: string | null;
  message: string;
}

/** Lints `files` (path → text, relative to `cwd`) with the layering rules only; the findings. */
function lint(cwd: string, files: Record<string, string>, lintOnly: string[] = Object.keys(files)): Finding[] {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(cwd, path, '..'), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  const script = `
    const { ESLint } = require(${JSON.stringify(require.resolve('eslint', { paths: [ROOT] }))});
    const tseslint = require(${JSON.stringify(require.resolve('typescript-eslint', { paths: [ROOT] }))});
    const { pathToFileURL } = require('node:url');
    (async () => {
      const { layering } = await import(pathToFileURL(${JSON.stringify(join(ROOT, 'eslint.layers.mjs'))}).href);
      const eslint = new ESLint({
        cwd: process.cwd(),
        overrideConfigFile: true,
        overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, layering],
      });
      const results = await eslint.lintFiles(JSON.parse(process.argv[1]));
      const found = results.flatMap((r) => r.messages.map((m) => ({ file: require('node:path').relative(process.cwd(), r.filePath), rule: m.ruleId, message: m.message })));
      process.stdout.write(JSON.stringify(found));
    })().catch((e) => { console.error(e); process.exit(2); });
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(lintOnly)], { cwd, encoding: 'utf8' })) as Finding[];
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tw-layering-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const errorsModule = { 'src/errors/errors.ts': 'export class ToolwrightError extends Error {}\n' };
const agentModule = {
  'src/agent/errors.ts': "import { ToolwrightError } from '../errors/errors';\nexport class RunError extends ToolwrightError {}\n",
};

describe('the floors of src', () => {
  it.each([
    ['stores', '../agent/errors'],
    ['errors', '../agent/errors'],
    ['session', '../agent/errors'],
    ['metadata', '../agent/errors'],
    ['tracing', '../agent/errors'],
  ])('an import planted in src/%s from %s (a floor above) fails', (folder, from) => {
    const planted = `src/${folder}/planted.ts`;
    const found = lint(
      dir,
      { ...errorsModule, ...agentModule, [planted]: `import { RunError } from '${from}';\nexport const x = RunError;\n` },
      [planted],
    );
    expect(found).toEqual([expect.objectContaining({ file: planted, rule: 'import-x/no-restricted-paths' })]);
  });

  it('an import from a floor below, or from the same folder, passes', () => {
    const planted = 'src/stores/planted.ts';
    const found = lint(
      dir,
      {
        ...errorsModule,
        'src/stores/other.ts': 'export const y = 1;\n',
        [planted]:
          "import { ToolwrightError } from '../errors/errors';\nimport { y } from './other';\nexport const x = [ToolwrightError, y];\n",
      },
      [planted],
    );
    expect(found).toEqual([]);
  });

  it('two folders on one floor may not import each other', () => {
    const planted = 'src/stores/planted.ts';
    const found = lint(
      dir,
      { 'src/tracing/spans.ts': 'export const z = 1;\n', [planted]: "import { z } from '../tracing/spans';\nexport const x = z;\n" },
      [planted],
    );
    expect(found.map((f) => f.rule)).toEqual(['import-x/no-restricted-paths']);
  });

  it('an import cycle fails; madge finds the type-only cycles the linter cannot see', () => {
    const files = {
      'src/registry/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'src/registry/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      'src/agent/c.ts': "import type { D } from './d';\nexport interface C { d?: D }\n",
      'src/agent/d.ts': "import type { C } from './c';\nexport interface D { c?: C }\n",
    };
    const found = lint(dir, files);
    expect(
      found
        .filter((f) => f.rule === 'import-x/no-cycle')
        .map((f) => f.file)
        .sort(),
    ).toEqual(['src/registry/a.ts', 'src/registry/b.ts']);
    expect(madgeCycles(dir)).toEqual([
      ['agent/c.ts', 'agent/d.ts'],
      ['registry/a.ts', 'registry/b.ts'],
    ]);
  });

  it('a file over 400 lines and a function over 80 fail', () => {
    const body = Array.from({ length: 81 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const fn = `export function long(): number {\n${body}\n  return 0;\n}\n`;
    const planted = 'src/registry/long.ts';
    const found = lint(dir, { [planted]: fn + '\n'.repeat(400) });
    expect(found.map((f) => f.rule).sort()).toEqual(['max-lines', 'max-lines-per-function']);
  });
});

function madgeCycles(cwd: string): string[][] {
  const script = `
    require(${JSON.stringify(require.resolve('madge', { paths: [ROOT] }))})('src', { fileExtensions: ['ts'] })
      .then((m) => process.stdout.write(JSON.stringify(m.circular())));
  `;
  const cycles = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd, encoding: 'utf8' })) as string[][];
  return cycles.map((c) => [...c].sort()).sort((x, y) => x[0].localeCompare(y[0]));
}

describe('src itself', () => {
  it('every folder of src stands on a floor of eslint.layers.mjs', () => {
    const script = `import(require('node:url').pathToFileURL(${JSON.stringify(join(ROOT, 'eslint.layers.mjs'))}).href).then((m) => process.stdout.write(JSON.stringify(m.FLOORS.flat())))`;
    const floors = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
    const folders = readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());
    expect(folders.filter((f) => !floors.includes(f))).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(madgeCycles(ROOT)).toEqual([]);
  });
});
