/**
 * Temporary consumer apps for the packed package: `npm pack` once, then per app a folder with
 * `node_modules/toolwright` extracted from the tarball and the other packages linked from this
 * repo's node_modules (offline, and only the ones the app is said to install). A linked package
 * resolves to one real path, so an app and toolwright share its module instance, as after
 * `npm install`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  exports: Record<string, unknown>;
};
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

export interface Packed {
  work: string;
  tarball: string;
  cleanup(): void;
}

/** Builds dist/ (CommonJS + ESM) and packs it, as `npm publish` would. */
export function buildAndPack(): Packed {
  const work = mkdtempSync(join(tmpdir(), 'tw-consumer-'));
  const name = withBuildLock(() => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe' });
    return execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
  });
  return { work, tarball: join(work, name), cleanup: () => rmSync(work, { recursive: true, force: true }) };
}

/** One build at a time: the packaging suites run in parallel jest workers and each rebuilds dist/. */
function withBuildLock<T>(fn: () => T): T {
  const lock = join(ROOT, '.ci/cache/build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock left by a killed run (a build takes seconds) is taken over.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since === undefined) continue; // released meanwhile
      if (Date.now() - since > 120_000) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`buildAndPack: ${lock} held for 5 minutes`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface AppOptions {
  type: 'commonjs' | 'module';
  /** Packages linked besides toolwright (the app's own installs). */
  install: readonly string[];
  files: Record<string, string>;
}

export function createApp(packed: Packed, name: string, options: AppOptions): string {
  const dir = join(packed.work, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  const unpacked = join(dir, '.unpack');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', packed.tarball, '-C', unpacked]);
  renameSync(join(unpacked, 'package'), join(dir, 'node_modules', 'toolwright'));
  for (const dep of options.install) {
    const link = join(dir, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), link, 'dir');
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: options.type }, null, 2));
  for (const [file, text] of Object.entries(options.files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** The strict settings a user's app has, and never skipLibCheck unless asked. */
export function tsconfig(compilerOptions: Record<string, unknown>, include: string[] = ['*.ts']): string {
  return JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        types: ['node'],
        outDir: 'out',
        ...compilerOptions,
      },
      include,
    },
    null,
    2,
  );
}

/** Runs tsc in the app; returns its diagnostics ('' when clean). */
export function tsc(dir: string, project = 'tsconfig.json'): string {
  const result = spawnSync(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`.trim();
}

export function node(dir: string, file: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What `npm install toolwright` plus the README's companions gives an app: the required dependencies only. */
export const REQUIRED = [...Object.keys(PKG.dependencies), '@types/node'];
/** The optional integrations an app using every subpath installs. */
// The AI SDK's declarations import json-schema's types, so its users install @types/json-schema.
// NestJS for docs/nestjs.md's example (toolwright/nestjs; its declarations reach rxjs's).
export const INTEGRATIONS = [
  '@langchain/core',
  '@modelcontextprotocol/sdk',
  'ai',
  '@types/json-schema',
  '@openai/agents-core',
  'zod',
  '@nestjs/common',
  '@nestjs/core',
  'rxjs',
];

export interface Snippet {
  /** e.g. `docs-models-3.ts` */
  file: string;
  /** `docs/models.md:57` */
  where: string;
  code: string;
  /** `<!-- ts-check: program -->`: a whole program, so also no top-level await (it must run in CommonJS). */
  program: boolean;
}

/**
 * Every ```ts block of README.md and docs/*.md, as a module. A block may be preceded by hidden
 * comments: `<!-- ts-context: … -->` (declarations it relies on, prepended) and
 * `<!-- ts-check: program -->`. A block fenced ```ts fragment is an excerpt (a method body, an
 * option) and is not compiled; every other block is.
 */
export function docSnippets(): { snippets: Snippet[]; fragments: string[] } {
  const docs = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const snippets: Snippet[] = [];
  const fragments: string[] = [];
  for (const doc of docs) {
    const lines = readFileSync(join(ROOT, doc), 'utf8').split('\n');
    let n = 0;
    for (let i = 0; i < lines.length; i++) {
      const fence = /^```(ts|typescript)( fragment)?\s*$/.exec(lines[i]);
      if (!fence) continue;
      const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
      const where = `${doc}:${i + 1}`;
      if (fence[2]) fragments.push(where);
      else {
        // Hidden comments directly above the fence (blank lines allowed between).
        let context = '';
        let program = false;
        let j = i - 1;
        while (j >= 0 && lines[j].trim() === '') j--;
        while (j >= 0 && lines[j].trimEnd().endsWith('-->')) {
          let start = j;
          while (start >= 0 && !lines[start].includes('<!--')) start--;
          const comment = lines
            .slice(start, j + 1)
            .join('\n')
            .replace(/^[\s\S]*?<!--\s*/, '')
            .replace(/\s*-->\s*$/, '');
          if (comment.startsWith('ts-context:')) context = `${comment.slice('ts-context:'.length).trim()}\n${context}`;
          else if (comment.trim() === 'ts-check: program') program = true;
          j = start - 1;
        }
        const name = doc.replace(/\.md$/, '').replace(/[/.]/g, '-').toLowerCase();
        snippets.push({ file: `${name}-${++n}.ts`, where, program, code: `${context}${lines.slice(i + 1, end).join('\n')}\nexport {};\n` });
      }
      i = end;
    }
  }
  return { snippets, fragments };
}

/** Tool classes the docs' snippets import from `./src/tools.js`, as an app would have them. */
export const SNIPPET_TOOLS = `import { IsOptional, IsNumber, IsString, Min, MinLength } from 'class-validator';
import { Param, Tool, type AgentContext, type ToolInterface } from 'toolwright';

export class LookupInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
}

export class RefundInput {
  @Param({ description: 'Order id' }) @IsString() @MinLength(1) order_id!: string;
  @Param({ description: 'Amount' }) @IsOptional() @IsNumber() @Min(0) amount?: number;
  @Param({ description: 'Reason' }) @IsString() reason!: string;
}

@Tool({ name: 'lookup_order', description: 'Look up an order', input: LookupInput })
export class LookupOrderTool implements ToolInterface<LookupInput> {
  execute(args: LookupInput) {
    return { status: 'found', orderId: args.order_id };
  }
}
export { LookupOrderTool as OrderLookupTool };

@Tool({ name: 'process_refund', description: 'Refund an order', input: RefundInput })
export class RefundProcessorTool implements ToolInterface<RefundInput> {
  execute(args: RefundInput, context: AgentContext) {
    return { status: 'success', order_id: args.order_id, key: context.idempotencyKey };
  }
}
`;
