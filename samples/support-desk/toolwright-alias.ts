/**
 * Inside this repository 'toolwright' (and each 'toolwright/<subpath>') is the source tree, not an installed package: map the
 * name to src/index.ts (as tsconfig's paths and jest's moduleNameMapper do) before anything
 * imports it. An app that installed toolwright from npm deletes this file and its import.
 */
import Module = require('node:module');
import * as path from 'node:path';

const src = path.resolve(__dirname, '..', '..', 'src');
const entries: Record<string, string> = {
  toolwright: path.join(src, 'index.ts'),
  'toolwright/mcp': path.join(src, 'mcp', 'index.ts'),
  'toolwright/ai-sdk-ui': path.join(src, 'ai-sdk-ui', 'index.ts'),
  'toolwright/agent': path.join(src, 'agent', 'index.ts'),
  'toolwright/models': path.join(src, 'agent', 'models', 'index.ts'),
  'toolwright/stores': path.join(src, 'stores', 'index.ts'),
  'toolwright/providers': path.join(src, 'schema', 'providers', 'index.ts'),
  'toolwright/nestjs': path.join(src, 'nestjs', 'index.ts'),
  'toolwright/mcp-client': path.join(src, 'mcp-client', 'index.ts'),
  'toolwright/studio': path.join(src, 'studio', 'index.ts'),
};
const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  return resolve.call(this, entries[request] ?? request, ...rest);
};
