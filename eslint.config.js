// ESLint flat config: typescript-eslint's recommended rules for the TypeScript sources, ESLint's
// for the scripts, and eslint-config-prettier last so that formatting is Prettier's business alone.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const classValidatorIsOptional = {
  name: 'class-validator',
  importNames: ['IsOptional'],
  message: 'Use @Omittable() from @app/common: @IsOptional() lets null skip every check, and null reaches code that expects the type.',
};

/**
 * The libs in layers, lowest first. A lib imports only libs of lower layers, and only through their
 * `@app/<lib>` index: feature libs do not import each other, and nothing below `tools` knows it.
 */
const LIB_LAYERS = [['common'], ['database'], ['mcp'], ['auth'], ['memory', 'files', 'health', 'conversations', 'oauth'], ['tools']];

/**
 * libs/auth's folders in layers, lowest first, each a Nest module with its own index: a folder imports
 * only folders of lower layers (and the lib's root files: options, config, credentials).
 */
const AUTH_FOLDER_LAYERS = [['users', 'rate-limit'], ['identity', 'access-log'], ['user-data'], ['admin']];

const byPath = { group: ['**/libs/*/src/**', '../../*/src/**'], message: "Import another lib through its index ('@app/<lib>'), not by path." };

function libLayerPattern(lib, depth) {
  const allowed = LIB_LAYERS.slice(0, depth).flat();
  return {
    group: ['@app/*', ...allowed.map((name) => `!@app/${name}`)],
    message: `libs/${lib} may import ${allowed.join(', ') || 'no other lib'} (the lib graph: LIB_LAYERS in eslint.config.js).`,
  };
}

/** One persistence style (docs/architecture.md, Persistence): a lib reaches its tables through the repositories it injects. */
const repositoriesOnly = [
  {
    name: '@nestjs/typeorm',
    importNames: ['InjectDataSource', 'InjectEntityManager'],
    message:
      'Inject a repository (@InjectRepository(Entity)); SQL goes through repository.query, transactions through repository.manager.transaction (docs/architecture.md, Persistence).',
  },
  {
    name: 'typeorm',
    importNames: ['DataSource'],
    message: 'Inject a repository (@InjectRepository(Entity)) instead of the DataSource (docs/architecture.md, Persistence).',
  },
];

/** Where the DataSource itself belongs: the database lib, and the test helpers that build one. */
const ownsDataSource = (lib, files) => lib === 'database' || files.includes('/testing/');

const importRules = (patterns, paths = [classValidatorIsOptional, ...repositoriesOnly]) => ({ 'no-restricted-imports': ['error', { paths, patterns }] });

const layerRules = LIB_LAYERS.flatMap((layer, depth) =>
  layer.flatMap((lib) =>
    [`libs/${lib}/**/*.ts`, `libs/${lib}/src/testing/**/*.ts`].map((files) => ({
      files: [files],
      rules: importRules([libLayerPattern(lib, depth), byPath], ownsDataSource(lib, files) ? [classValidatorIsOptional] : undefined),
    })),
  ),
);

const authDepth = LIB_LAYERS.findIndex((layer) => layer.includes('auth'));
const authFolderRules = AUTH_FOLDER_LAYERS.flatMap((layer, depth) => {
  const allowed = AUTH_FOLDER_LAYERS.slice(0, depth).flat();
  return layer.map((folder) => {
    const forbidden = AUTH_FOLDER_LAYERS.flat().filter((other) => other !== folder && !allowed.includes(other));
    const folderPattern = {
      group: forbidden.map((other) => `**/${other}/**`),
      message: `libs/auth/src/${folder} may import ${allowed.join(', ') || 'no other folder of libs/auth'} (AUTH_FOLDER_LAYERS in eslint.config.js).`,
    };
    const patterns = [libLayerPattern('auth', authDepth), byPath, ...(forbidden.length ? [folderPattern] : [])];
    return { files: [`libs/auth/src/${folder}/**/*.ts`], rules: importRules(patterns) };
  });
});

export default tseslint.config(
  // metadata.ts, metadata.jest.ts: the types plugin's output (scripts/tool-types.mjs), generated and not committed.
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'data/', 'scratch/', 'conformance-results/', 'metadata.ts', 'metadata.jest.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // `_name` marks a parameter or binding kept on purpose (a required signature, a skipped tuple slot).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Nest modules are classes whose decorators carry everything; an empty class body is the norm.
      '@typescript-eslint/no-extraneous-class': 'off',
      // Non-null assertions follow checks TypeScript cannot follow (regex groups, indexed reads after a length check).
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Reflected design types (`design:paramtypes`) are constructors of any shape: `Function` is their honest type.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // It does not see a constant read only inside a decorator's arguments (e.g. a schema pattern) as used.
      'no-useless-assignment': 'off',
      'no-restricted-imports': ['error', { paths: [classValidatorIsOptional] }],
    },
  },
  {
    // The web console runs in the browser.
    files: ['apps/console/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The types plugin's entry is CommonJS because the Nest CLI loads compiler plugins with require().
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...layerRules,
  ...authFolderRules,
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'apps/server/test/**/*.ts'],
    rules: {
      // Tests poke at untyped JSON answers.
      '@typescript-eslint/no-explicit-any': 'off',
      // Fixture tools declare parameters for their decorators' metadata, not to read them.
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  prettier,
);
