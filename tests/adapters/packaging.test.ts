import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const OPTIONAL_PEERS = ['ai', '@openai/agents-core', '@langchain/core', '@modelcontextprotocol/sdk', '@nestjs/common', '@nestjs/core'];
/** Loaded lazily, inside the model adapters, stores and tracing that need them. */
const LAZY_PEERS = [
  'openai',
  '@anthropic-ai/sdk',
  'ioredis',
  'pg',
  'better-sqlite3',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/context-async-hooks',
];

/** The bare module specifiers a source file loads at run time (type-only imports are erased). */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  const pattern = /^(?!\s*(?:import|export)\s+type\b).*?(?:from\s+|import\s*\(\s*|require\s*\(\s*|^import\s+)'([^']+)'/gm;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1]);
  return specifiers;
}

/** Every package reachable from `entry` through relative runtime imports. */
function reachablePackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of runtimeImports(file)) {
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
        continue;
      }
      const base = resolve(dirname(file), spec);
      const target = [`${base}.ts`, join(base, 'index.ts')].find(existsSync);
      if (target) visit(target);
    }
  };
  visit(entry);
  return packages;
}

describe('packaging: optional integrations stay out of the core', () => {
  it('declares the agent runtimes and the MCP SDK as optional peers, installed for development', () => {
    for (const name of OPTIONAL_PEERS) {
      expect({
        name,
        peer: typeof pkg.peerDependencies?.[name],
        optional: pkg.peerDependenciesMeta?.[name]?.optional,
        dev: typeof pkg.devDependencies?.[name],
      }).toEqual({
        name,
        peer: 'string',
        optional: true,
        dev: 'string',
      });
      expect(pkg.dependencies?.[name]).toBeUndefined();
    }
  });

  it('the root entry point loads none of them', () => {
    const reached = reachablePackages(join(ROOT, 'src/index.ts'));
    expect(reached.has('class-validator')).toBe(true); // the scan does follow imports
    expect(OPTIONAL_PEERS.filter((name) => reached.has(name))).toEqual([]);
  });

  it('declares the model SDKs and database drivers as optional peers, and importing the root loads none of them', () => {
    for (const name of LAZY_PEERS)
      expect({ name, optional: pkg.peerDependenciesMeta?.[name]?.optional, dep: pkg.dependencies?.[name] }).toEqual({
        name,
        optional: true,
        dep: undefined,
      });
    const script =
      "require('./src/index.ts');" +
      "const loaded = new Set(Object.keys(require.cache).map((f) => (f.split('node_modules/')[1] || '').split('/')).filter((p) => p[0]).map((p) => (p[0].startsWith('@') ? p[0] + '/' + p[1] : p[0])));" +
      'process.stdout.write(JSON.stringify([...loaded]));';
    const loaded: string[] = JSON.parse(
      execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
    );
    expect(loaded).toContain('class-validator'); // the probe does see what the root loads
    expect(loaded.filter((name) => LAZY_PEERS.includes(name) || OPTIONAL_PEERS.includes(name))).toEqual([]);
  });

  it('maps every subpath export to a compiled module of an existing source file', () => {
    expect(pkg.exports['.']).toEqual({
      import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
      require: { types: './dist/index.d.ts', default: './dist/index.js' },
    });
    expect(pkg.bin.toolwright).toBe('dist/cli/main.js');
    expect(readFileSync(join(ROOT, 'src/cli/main.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    type Target = { default: string; types: string };
    const subpaths = Object.entries(pkg.exports as Record<string, string | { import: Target; require: Target }>).filter(
      ([key]) => key !== './package.json',
    );
    expect(subpaths.map(([key]) => key)).toEqual([
      '.',
      './mcp',
      './mcp-client',
      './ai-sdk-ui',
      './agent',
      './models',
      './stores',
      './providers',
      './adapters/ai-sdk',
      './adapters/openai-agents',
      './adapters/langchain',
      './nestjs',
      './studio',
    ]);
    for (const [, target] of subpaths) {
      // CommonJS: x.js + x.d.ts; ESM: x.mjs + x.d.mts beside them (scripts/build-esm.js), one source file.
      const { import: esm, require: cjs } = target as { import: Target; require: Target };
      expect(cjs.types).toBe(cjs.default.replace(/\.js$/, '.d.ts'));
      expect(esm).toEqual({ types: cjs.default.replace(/\.js$/, '.d.mts'), default: cjs.default.replace(/\.js$/, '.mjs') });
      expect(existsSync(join(ROOT, cjs.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')))).toBe(true);
    }
  });

  it('each adapter module imports only its own runtime', () => {
    expect([...reachablePackages(join(ROOT, 'src/mcp-client/index.ts'))].filter((p) => OPTIONAL_PEERS.includes(p))).toEqual([
      '@modelcontextprotocol/sdk',
    ]);
    expect([...reachablePackages(join(ROOT, 'src/adapters/ai-sdk.ts'))].filter((p) => OPTIONAL_PEERS.includes(p))).toEqual(['ai']);
    expect([...reachablePackages(join(ROOT, 'src/adapters/openai-agents.ts'))].filter((p) => OPTIONAL_PEERS.includes(p))).toEqual([
      '@openai/agents-core',
    ]);
    expect([...reachablePackages(join(ROOT, 'src/adapters/langchain.ts'))].filter((p) => OPTIONAL_PEERS.includes(p))).toEqual([
      '@langchain/core',
    ]);
    // The studio loads its tracing SDK only when it starts (by name, past this static reading), and no integration.
    expect(
      [...reachablePackages(join(ROOT, 'src/studio/index.ts'))].filter((p) => OPTIONAL_PEERS.includes(p) || LAZY_PEERS.includes(p)),
    ).toEqual([]);
    // The chat endpoint speaks the AI SDK's wire format without loading the SDK.
    expect(
      [...reachablePackages(join(ROOT, 'src/ai-sdk-ui/index.ts'))].filter((p) => OPTIONAL_PEERS.includes(p) || LAZY_PEERS.includes(p)),
    ).toEqual([]);
    // Nest is loaded by toolwright/nestjs only (with the MCP SDK for its MCP controller).
    expect([...reachablePackages(join(ROOT, 'src/nestjs/index.ts'))].filter((p) => OPTIONAL_PEERS.includes(p)).sort()).toEqual([
      '@modelcontextprotocol/sdk',
      '@nestjs/common',
      '@nestjs/core',
    ]);
  });
});
