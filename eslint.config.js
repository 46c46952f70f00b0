import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const UNSAFE_ANY_RULES = Object.fromEntries(
  ['argument', 'assignment', 'call', 'member-access', 'return'].map((r) => [
    `@typescript-eslint/no-unsafe-${r}`,
    'off',
  ]),
);

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'data/',
      'src/generated/',
      'examples/client/generated/',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Knex builders are thenables, and one never awaited never runs: a builder only extended (a where-group
      // callback) is marked `void`.
      '@typescript-eslint/no-floating-promises': ['error', { checkThenables: true }],
      // Kept whole: Express 5 types a handler's return as unknown (a rejection reaches the error handler), so
      // this flags only real void slots: timers, event emitters, Knex and other callbacks whose promise is lost.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: true }],
      // A promise returned from inside try without await skips its catch and finally.
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      // Apollo plugin and oidc-provider hooks are async by contract; an async without await there is no bug.
      '@typescript-eslint/require-await': 'off',
      // URLSearchParams in a template is the query string (Node's own type, not lib's, so the default misses it).
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allow: [{ from: 'package', name: ['URL', 'URLSearchParams'], package: 'url' }] },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name='only']",
          message: '.only never lands',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'URL', 'URLSearchParams', 'fetch', 'performance', 'setTimeout', 'Buffer'].map((g) => [
          g,
          'readonly',
        ]),
      ),
    },
  },
  // lib/url-parse.ts mutes url.parse's one warning for the process: any other use would go unwarned.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/lib/url-parse.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['url', 'node:url'].map((name) => ({
            name,
            importNames: ['parse'],
            message: 'use the WHATWG URL class (url.parse is deprecated; lib/url-parse.ts settles its warning)',
          })),
        },
      ],
    },
  },
  // A source file is one job: past 300 lines it is doing two.
  { files: ['src/**/*.ts'], rules: { 'max-lines': ['error', { max: 300 }] } },
  // Knex types every row as any: the stores turn raw column values into the typed rows of types.ts on the way out.
  {
    files: ['src/stores/**/*.ts'],
    rules: { ...UNSAFE_ANY_RULES, '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    files: ['tests/**/*.ts'],
    rules: {
      // Tests read raw rows and JSON bodies only to assert on them: a wrong guess fails the assertion.
      ...UNSAFE_ANY_RULES,
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  prettier,
);
