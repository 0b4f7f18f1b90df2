import type { Config } from 'jest';

type Project = NonNullable<Config['projects']>[number] & object;

const base = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests', '<rootDir>/samples'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: {
    '^toolwright$': '<rootDir>/src/index.ts',
    '^toolwright/mcp$': '<rootDir>/src/mcp/index.ts',
    '^toolwright/mcp-client$': '<rootDir>/src/mcp-client/index.ts',
    '^toolwright/ai-sdk-ui$': '<rootDir>/src/ai-sdk-ui/index.ts',
    '^toolwright/agent$': '<rootDir>/src/agent/index.ts',
    '^toolwright/models$': '<rootDir>/src/agent/models/index.ts',
    '^toolwright/stores$': '<rootDir>/src/stores/index.ts',
    '^toolwright/providers$': '<rootDir>/src/schema/providers/index.ts',
    '^toolwright/nestjs$': '<rootDir>/src/nestjs/index.ts',
    '^toolwright/studio$': '<rootDir>/src/studio/index.ts',
  },
  setupFiles: ['reflect-metadata'],
} satisfies Project;

/**
 * Two projects: the whole suite on the newest supported majors (the devDependencies), and the
 * suites that drive an integration's own code again on the oldest supported version (installed
 * under an npm alias), so both ends of each peer range run in-suite. Every integration's oldest and
 * newest, the AI SDK's among them, also run in tests/packaging/install-matrix.test.ts: installed with
 * a plain `npm install` into new apps (ai 7 is ESM-only and needs Node 22: that row runs on Node 24
 * when the suite runs on Node 20).
 */
function requireEsmInJest(): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return (major > 24 || (major === 24 && minor >= 9)) && (process.env.NODE_OPTIONS ?? '').includes('--experimental-vm-modules');
}

const config: Config = {
  testTimeout: 30000,
  projects: [
    {
      ...base,
      displayName: 'newest',
      globals: { PEER_END: 'newest' },
      // NestJS 12 is ESM-only: jest loads it (require(esm)) only on Node >= 24.9 with
      // NODE_OPTIONS=--experimental-vm-modules; otherwise the Nest suites (and the Nest sample's) are
      // skipped here and .ci/run runs them in a step of their own on Node 24 with that flag.
      testPathIgnorePatterns: requireEsmInJest() ? ['/node_modules/'] : ['/node_modules/', '/tests/nestjs/', '/samples/nest-desk/'],
    },
    {
      ...base,
      displayName: 'oldest',
      globals: { PEER_END: 'oldest' },
      testMatch: [
        '**/tests/adapters/{openai-agents,peer-ends}.test.ts',
        '**/tests/agent/models/openai.model.test.ts',
        '**/tests/agent/structured-output-wire.test.ts',
        '**/tests/nestjs/*.test.ts',
        '**/samples/nest-desk/*.test.ts',
      ],
      moduleNameMapper: {
        ...base.moduleNameMapper,
        // NestJS 11 (CommonJS: runs on Node 20 without flags) lives in a tree of its own, since its
        // packages peer-depend on each other at ^11 (.ci/peers/nest11, a file: devDependency).
        '^@nestjs/(common|core|platform-express|platform-fastify|testing)(/.*)?$': '<rootDir>/.ci/peers/nest11/node_modules/@nestjs/$1$2',
        '^openai(/.*)?$': 'openai-v6$1',
        '^@openai/agents-core(/.*)?$': '@openai/agents-core-v014$1',
      },
    },
  ],
};

export default config;
