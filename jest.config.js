// Two projects: unit specs beside the code, end-to-end specs in test/.
// tsconfig sets isolatedModules, so ts-jest only transpiles; `npm run typecheck` type-checks once.
const moduleNameMapper = {
  '^@app/core$': '<rootDir>/libs/core/src',
  '^@app/core/(.*)$': '<rootDir>/libs/core/src/$1',
  '^@app/auth$': '<rootDir>/libs/auth/src',
  '^@app/auth/(.*)$': '<rootDir>/libs/auth/src/$1',
  '^@app/uploads$': '<rootDir>/libs/uploads/src',
  '^@app/uploads/(.*)$': '<rootDir>/libs/uploads/src/$1',
  '^@app/kinds$': '<rootDir>/libs/kinds/src',
  '^@app/kinds/(.*)$': '<rootDir>/libs/kinds/src/$1',
  '^@app/passes$': '<rootDir>/libs/passes/src',
  '^@app/passes/(.*)$': '<rootDir>/libs/passes/src/$1',
  '^@app/holders$': '<rootDir>/libs/holders/src',
  '^@app/holders/(.*)$': '<rootDir>/libs/holders/src/$1',
  '^@app/automations$': '<rootDir>/libs/automations/src',
  '^@app/automations/(.*)$': '<rootDir>/libs/automations/src/$1',
  '^@app/audiences$': '<rootDir>/libs/audiences/src',
  '^@app/audiences/(.*)$': '<rootDir>/libs/audiences/src/$1',
  '^@app/locations$': '<rootDir>/libs/locations/src',
  '^@app/locations/(.*)$': '<rootDir>/libs/locations/src/$1',
  '^@app/notifications$': '<rootDir>/libs/notifications/src',
  '^@app/notifications/(.*)$': '<rootDir>/libs/notifications/src/$1',
  '^@app/wallet-a$': '<rootDir>/libs/wallet-a/src',
  '^@app/wallet-a/(.*)$': '<rootDir>/libs/wallet-a/src/$1',
  '^@app/wallet-b$': '<rootDir>/libs/wallet-b/src',
  '^@app/wallet-b/(.*)$': '<rootDir>/libs/wallet-b/src/$1',
  '^@app/campaigns$': '<rootDir>/libs/campaigns/src',
  '^@app/campaigns/(.*)$': '<rootDir>/libs/campaigns/src/$1',
  '^@app/webhooks$': '<rootDir>/libs/webhooks/src',
  '^@app/webhooks/(.*)$': '<rootDir>/libs/webhooks/src/$1',
};
// @walletpass/pass-js 7 ships only ES modules, and Jest runs the tests as CommonJS: ts-jest
// compiles that one package to CommonJS too. (Jest's own require() of ES modules needs
// --experimental-vm-modules, which would change how every other test loads.)
const ESM_PACKAGES = ['@walletpass/pass-js'];
const transform = {
  '^.+\\.ts$': ['ts-jest', {}],
  [`/node_modules/(${ESM_PACKAGES.join('|')})/.+\\.js$`]: [
    'ts-jest',
    { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2023' } },
  ],
};
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`];

module.exports = {
  // Read at the top level only (a project-level testTimeout is ignored).
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testEnvironment: 'node',
      moduleFileExtensions: ['ts', 'js', 'json'],
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testEnvironment: 'node',
      moduleFileExtensions: ['ts', 'js', 'json'],
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
    },
  ],
};
