// One jest config for unit specs (next to the code) and e2e specs (test/).
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  transform: { '^.+\\.(t|j)s$': '<rootDir>/test/setup/swc-transform.js' },
  transformIgnorePatterns: [],
  moduleNameMapper: {
    '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
    '^@app/([a-z-]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
    '^@test/support/(.*)$': '<rootDir>/test/support/$1',
  },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/test/setup/per-file-env.ts'],
  testTimeout: 60000,
  // Last line of defence for CI: a client a failed test forgot to close (a Kafka client retrying,
  // a Redis socket) must not keep jest alive after the summary. Leaks still show as test failures.
  forceExit: true,
  slowTestThreshold: 20,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
};
