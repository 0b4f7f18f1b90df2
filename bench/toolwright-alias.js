'use strict';
/**
 * Preloaded (`node -r`) for the TypeScript benches that import 'toolwright': resolves the
 * package name to src/index.ts, as jest's moduleNameMapper and tsconfig's paths do.
 */
const Module = require('node:module');
const path = require('node:path');

const entry = path.resolve(__dirname, '..', 'src', 'index.ts');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === 'toolwright' ? entry : request, ...rest);
};
