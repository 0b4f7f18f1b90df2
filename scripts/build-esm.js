#!/usr/bin/env node
/**
 * The ESM half of the dual build, run after `tsc -p tsconfig.build.json` wrote the CommonJS one.
 *
 * toolwright itself stays ONE CommonJS instance (one ToolwrightError class, one registry), so an
 * ESM app and a CommonJS config loaded by the CLI see the same classes. Two kinds of ESM files:
 * - a module that imports a peer shipping separate ESM and CommonJS builds (LangChain, the MCP
 *   SDK, the AI SDK, the Agents SDK) gets a real ESM twin (`x.mjs` + `x.d.mts`) that imports the
 *   peer as ESM, so an ESM app gets the same peer instance and types (`instanceof
 *   DynamicStructuredTool` holds); its imports of toolwright's own modules point at the CommonJS
 *   files;
 * - every other subpath entry gets a thin wrapper re-exporting the CommonJS module.
 */
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const ts = require('typescript');

const ROOT = resolve(__dirname, '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
/** Peers whose ESM and CommonJS entry points are different module instances with different types. */
const DUAL_PEERS = ['@langchain/core', '@modelcontextprotocol/sdk', 'ai', '@openai/agents-core'];

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** src file (absolute, .ts) of a relative specifier, or undefined. */
function resolveSource(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find(existsSync);
}

function importsOf(file) {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** Source files that need an ESM twin: they import a dual peer, or a module that does. */
function twins(entries) {
  const memo = new Map();
  const needs = (file, stack = new Set()) => {
    if (memo.has(file)) return memo.get(file);
    if (stack.has(file)) return false;
    stack.add(file);
    const result = importsOf(file).some((spec) => {
      if (!spec.startsWith('.')) return DUAL_PEERS.includes(packageOf(spec));
      const target = resolveSource(file, spec);
      return target !== undefined && needs(target, stack);
    });
    memo.set(file, result);
    return result;
  };
  const found = new Set();
  const visit = (file) => {
    if (found.has(file) || !needs(file)) return;
    found.add(file);
    for (const spec of importsOf(file)) {
      const target = spec.startsWith('.') ? resolveSource(file, spec) : undefined;
      if (target) visit(target);
    }
  };
  entries.forEach(visit);
  return found;
}

/** Rewrites relative specifiers in emitted code: twins to `.mjs`, everything else to its CommonJS `.js`. */
function rewriteSpecifiers(code, sourceFile, twinSet) {
  return code.replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, (match, lead, quote, spec) => {
    const target = resolveSource(sourceFile, spec);
    if (!target) throw new Error(`${relative(ROOT, sourceFile)}: cannot resolve ${spec}`);
    let rel = relative(dirname(sourceFile), target)
      .replace(/\\/g, '/')
      .replace(/\.ts$/, twinSet.has(target) ? '.mjs' : '.js');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${lead}${quote}${rel}${quote}`;
  });
}

const distOf = (srcFile, ext) => join(DIST, relative(SRC, srcFile)).replace(/\.ts$/, ext);

/** The `exports` entries: `{ subpath: srcFile }`, from the `require` condition's targets. */
const entries = Object.entries(pkg.exports)
  .filter(([key]) => key !== './package.json')
  .map(([key, target]) => [key, join(SRC, target.require.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'))]);

const twinSet = twins(entries.map(([, file]) => file));
const written = [];

for (const file of twinSet) {
  const source = readFileSync(file, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    },
  });
  writeFileSync(distOf(file, '.mjs'), rewriteSpecifiers(outputText, file, twinSet));
  const declaration = readFileSync(distOf(file, '.d.ts'), 'utf8');
  writeFileSync(distOf(file, '.d.mts'), rewriteSpecifiers(declaration, file, twinSet));
  written.push(distOf(file, '.mjs'));
}

for (const [, file] of entries) {
  if (twinSet.has(file)) continue;
  // A wrapper: the names come from the CommonJS module itself, so none can be missed.
  const cjs = distOf(file, '.js');
  const names = Object.keys(require(cjs)).filter((name) => name !== 'default' && name !== '__esModule');
  const base = `./${relative(dirname(cjs), cjs).replace(/\\/g, '/')}`;
  writeFileSync(distOf(file, '.mjs'), `import cjs from '${base}';\nexport const { ${names.join(', ')} } = cjs;\n`);
  writeFileSync(distOf(file, '.d.mts'), `export * from '${base}';\n`);
  written.push(distOf(file, '.mjs'));
}

process.stdout.write(`ESM: ${written.map((f) => relative(ROOT, f)).join(', ')}\n`);
