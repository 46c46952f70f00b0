/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Relative imports are written with .js (NodeNext); ts-jest resolves them to the .ts sources.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }],
  },
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
