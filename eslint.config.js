// @ts-check
/**
 * Lint settings for the whole tree (npm run lint, which npm test runs first). Formatting is
 * Prettier's (.prettierrc.json); eslint-config-prettier switches off the rules it owns.
 */
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Shipped and local-stack code (functions/, shared/, infra/) imports nothing under test/. */
const NO_TEST_IMPORTS = {
  regex: String.raw`(^|/)test/`,
  message:
    'Only tests import from test/: move what this needs beside its user (the fakes npm start serves: infra/local/fakes/).',
};

/** The code the type-aware rules read: what ships and what runs the stack. */
const TYPED = ['functions/**/*.ts', 'shared/**/*.ts', 'infra/**/*.ts'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.local/',
      'coverage/',
      'clients/*/dist/',
      'clients/typescript/src/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  prettier,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'always'],
      // Indexed access is checked by noUncheckedIndexedAccess; `!` marks what the code proved.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Validation of user input names the control characters it refuses.
      'no-control-regex': 'off',
      // merge-patch (RFC 7396) removes the members a patch sets to null.
      '@typescript-eslint/no-dynamic-delete': 'off',
    },
  },
  {
    // Sample apps are static pages the browser runs (docs/apps.md): its globals, no Node's.
    files: ['examples/apps/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'history', 'fetch', 'URL', 'URLSearchParams', 'console'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
  // Rules that read the types, on the code that ships or runs the stack only: tests and bench keep
  // the rules above, so their files cost no type information (docs/decisions.md, "Type-aware lint").
  ...tseslint.configs.recommendedTypeCheckedOnly.map((config) => ({ ...config, files: TYPED })),
  {
    files: TYPED,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A `default:` is the code saying "every other case"; what this catches is a switch without one.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Passing on an abort signal's reason or a caught error unchanged is right; a literal is not.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Every finding was String() of a value of unknown shape on purpose (protocol JSON in the
      // local fakes, driver cells, error parameters): no "[object Object]" in any of them.
      '@typescript-eslint/no-base-to-string': 'off',
      // Every finding was an async function that implements a Promise-returning contract (route
      // implementations, GoogleAuth's client methods) where `async` turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Code that ships or runs the stack never reaches into the tests.
    files: ['functions/**', 'shared/**', 'infra/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_TEST_IMPORTS] }] },
  },
  {
    // Connectors reach external systems and know no stored entity; the aggregates above use them
    // (docs/decisions.md, Connections: "Connectors, connections, data sources").
    files: ['shared/connectors/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_TEST_IMPORTS,
            {
              regex: String.raw`/(connections|data-sources|data-tables|datasets|recipes|targets|exports)/`,
              message: 'A connector knows no stored entity: the aggregate that uses it passes what it needs.',
            },
          ],
        },
      ],
    },
  },
  {
    // A data source names its connection, so connections know nothing of data sources.
    files: ['shared/connections/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_TEST_IMPORTS,
            {
              regex: String.raw`/(data-sources|data-tables|datasets|recipes|targets|exports)/`,
              message: 'Connections sit below the aggregates that name them: put this with the aggregate above.',
            },
          ],
        },
      ],
    },
  },
  {
    // Command-line programs print their report.
    files: ['bench/**', 'infra/scripts/**', 'infra/local/main.ts'],
    rules: { 'no-console': 'off' },
  },
);
