// ESLint flat config: typescript-eslint's type-checked rules over src, tests, samples and bench.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { layering } from './eslint.layers.mjs';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.toolwright/', 'node_modules/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Intentional `_`-prefixed placeholders (callback positions, destructuring) are fine.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Decorator metadata and the metadata module deal in `Function` and `any` by nature; narrow at the use.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Tools may be sync or async by choice (`execute` returns string | object | Promise); ToolInterface allows both.
      '@typescript-eslint/require-await': 'off',
      // Rejections of our own typed errors are awaited by callers; fire-and-forget sites say `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      // Optional peers are loaded with require() on first use on purpose (see src/errors/optional-peer.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: ['/package\\.json$'] }],
    },
  },
  layering,
  {
    // The compiled argument hydrator is generated code by design (one Function per input class, built once).
    files: ['src/validation/hydrator.ts'],
    rules: { '@typescript-eslint/no-implied-eval': 'off' },
  },
  {
    // Maps 'toolwright' to src/ inside this repository, before anything imports it.
    files: ['samples/support-desk/toolwright-alias.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['tests/**/*.ts', 'samples/**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      // jest's expect(obj.method) and mocks reference methods unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  prettier,
);
