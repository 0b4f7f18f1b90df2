import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests', '<rootDir>/samples'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: { '^toolwright$': '<rootDir>/src/index.ts', '^toolwright/ai-sdk-ui$': '<rootDir>/src/http/index.ts' },
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
};

export default config;
