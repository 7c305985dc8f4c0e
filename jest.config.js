/** Jest runs the TypeScript sources as ES modules through SWC, with decorator metadata emitted. */
const swcOptions = {
  // The build's .swcrc excludes tests from dist; Jest must not read it.
  swcrc: false,
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'es6' },
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
  moduleNameMapper: {
    // The app's import of the tool types (apps/server/src/packaged-tool-types.ts): Jest's own file, which covers examples/ too.
    '^\\.\\./\\.\\./\\.\\./metadata\\.js$': '<rootDir>/metadata.jest.ts',
    '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    // Tool directories import the public tool API by this name; compiled entry points map it with module hooks.
    '^mirobody$': '<rootDir>/apps/server/src/tool-api.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/apps/**/test/**/*.e2e-spec.ts'],
  // The tools' types (metadata.jest.ts), and one empty embedded database per run, copied for each app the tests boot.
  globalSetup: '<rootDir>/apps/server/test/support/pglite-template.ts',
  testTimeout: 30000,
  // Each test file's ES modules stay in the worker's heap after it ends (70 to 90 MB per e2e file
  // measured with --logHeapUsage): the worker is replaced once it holds this much, rather than
  // growing to V8's heap limit over the whole run (it did, at 3.9 GB, 130 files in).
  workerIdleMemoryLimit: '1.5GB',
};
