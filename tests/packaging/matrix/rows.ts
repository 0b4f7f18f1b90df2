/**
 * The install matrix's rows: every integration at the oldest version its peer range allows, and
 * every integration at its newest release. Exact versions, so a row is the same install every
 * time; install-matrix.test.ts checks the oldest row against package.json's peer ranges.
 */
export interface MatrixRow {
  name: 'oldest' | 'newest';
  /** The lowest Node major the row's packages declare (`engines`); below it the row runs on Node 24 (.ci/node24.sh). */
  minNode: number;
  dependencies: Record<string, string>;
  /** What a TypeScript app adds to type-check against these versions (the app compiles with the repo's tsc). */
  devDependencies: Record<string, string>;
}

/** What every app of the README installs beside toolwright. */
export const COMPANIONS = {
  'reflect-metadata': '0.2.2',
  'class-validator': '0.15.1',
  'class-transformer': '0.5.1',
  typedi: '0.10.0',
};

export const ROWS: MatrixRow[] = [
  {
    name: 'oldest',
    minNode: 20,
    dependencies: {
      ai: '6.0.0',
      '@ai-sdk/react': '3.0.0',
      react: '18.3.1',
      'react-test-renderer': '18.3.1',
      '@openai/agents-core': '0.14.0',
      openai: '6.49.0',
      '@anthropic-ai/sdk': '1.14.0',
      // No `langchain` here: every langchain 1.x pulls a @langchain/langgraph that wants @langchain/core ^1.1 or newer
      // (npm warns ERESOLVE and LangGraph fails to load against 1.0.0); this row drives @langchain/core's own loop.
      '@langchain/core': '1.0.0',
      '@modelcontextprotocol/sdk': '1.32.0',
      'better-sqlite3': '12.0.0',
      zod: '4.1.8',
    },
    // ai 6's declarations import json-schema's types, so its TypeScript users install @types/json-schema.
    devDependencies: { '@types/node': '20.19.43', '@types/json-schema': '7.0.15' },
  },
  {
    name: 'newest',
    // ai 7, @ai-sdk/react 4, openai 7 and better-sqlite3 13 need Node 22.
    minNode: 22,
    dependencies: {
      ai: '7.0.173',
      '@ai-sdk/react': '4.0.177',
      react: '19.3.1',
      'react-test-renderer': '19.3.1',
      '@openai/agents-core': '0.20.0',
      openai: '7.60.0',
      '@anthropic-ai/sdk': '1.16.0',
      '@langchain/core': '1.4.0',
      langchain: '1.5.14',
      '@modelcontextprotocol/sdk': '1.32.2',
      'better-sqlite3': '13.2.0',
      zod: '4.6.7',
    },
    // TypeScript 7 (the native compiler): the app compiles its decorated tools with it too (install-matrix.test.ts).
    devDependencies: { '@types/node': '24.19.4', typescript: '7.0.2' },
  },
];
