// The layering of src/, bottom floor first: a folder imports only from folders on floors below its
// own (and from itself). src/index.ts, the front door, stands above them all.
import importX from 'eslint-plugin-import-x';

export const FLOORS = [
  ['errors'],
  ['content'],
  ['session', 'side-effects', 'request-body'],
  ['metadata', 'stores', 'tracing'],
  ['schema', 'decorators', 'container'],
  ['validation'],
  ['registry'],
  ['agent', 'mcp-client'],
  ['adapters', 'ai-sdk-ui'],
  ['mcp'],
  ['studio'],
  ['cli', 'nestjs'],
];

const floorOf = new Map(FLOORS.flatMap((folders, floor) => folders.map((folder) => [folder, floor])));

/** One no-restricted-paths zone a folder: everything in src but itself and the floors below. */
export const zones = [...floorOf].map(([folder, floor]) => {
  const allowed = [...floorOf].filter(([, f]) => f < floor).map(([name]) => name);
  return {
    target: `./src/${folder}`,
    from: './src',
    except: [`./${folder}`, ...allowed.map((name) => `./${name}`)],
    message: allowed.length
      ? `src/${folder} imports only from ${allowed.map((n) => `src/${n}`).join(', ')}.`
      : `src/${folder} imports nothing of src.`,
  };
});

/** The rules that keep the house: no import cycles, no import across the floors, small files and functions. */
export const layering = {
  files: ['src/**/*.ts'],
  plugins: { 'import-x': importX },
  // no-cycle reads the imported files with the TypeScript parser; without it no cycle is seen.
  settings: {
    'import-x/resolver': { typescript: true, node: true },
    'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    'import-x/extensions': ['.ts'],
  },
  rules: {
    'import-x/no-cycle': ['error', { ignoreExternal: true }],
    'import-x/no-restricted-paths': ['error', { zones }],
    'max-lines': ['error', { max: 400 }],
    'max-lines-per-function': ['error', { max: 80, IIFEs: true }],
  },
};
