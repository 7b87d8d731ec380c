import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// `npm run lint`: ESLint for correctness and the boundaries between the
// layers, Prettier (.prettierrc.json) for the layout. The boundaries:
// components/ is client code (nothing of lib/ or agent/ but types, except the
// server components named below); lib/ never reaches agent/; common/ is
// browser-safe and reaches nothing of the project but types.

const typesOnly = (from, message) => ({ group: from, allowTypeImports: true, message });

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next*/',
      'lib/generated/',
      'test-results/',
      'playwright-report/',
      'extension/',
      'coverage/',
      '.data*/',
      'test/fixtures/',
      'demo/repos/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // stripping control characters and matching aligned output are what those expressions are for
      'no-control-regex': 'off',
      'no-regex-spaces': 'off',
    },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['components/**'],
    ignores: ['components/shell/unsafe-sandbox-banner.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            typesOnly(
              ['@/lib/*', '**/lib/*', '!@/lib/generated/prisma/enums'],
              'components/ is client code: import lib/ for its types only (data comes through the API)',
            ),
            typesOnly(['@/agent/*', '**/agent/*'], 'components/ is client code: agent/ runs on the server'),
          ],
        },
      ],
    },
  },
  {
    files: ['lib/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@/agent/*', '**/agent/*'], message: 'lib/ never imports agent/: the worker calls lib/, not the other way' }] },
      ],
    },
  },
  {
    files: ['common/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            typesOnly(
              ['@/lib/*', '../lib/*', '@/agent/*', '../agent/*', '@/demo/*', '../demo/*', '@/scripts/*', '../scripts/*', '@/components/*', '../components/*'],
              'common/ is browser-safe: it imports nothing of the project but types',
            ),
          ],
        },
      ],
    },
  },
);
