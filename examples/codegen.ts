import type { CodegenConfig } from '@graphql-codegen/cli';

// The schema a live Roster serves (no token needed), e.g. http://localhost:3000/graphql/schema.graphql;
// without it, the repository's own copy, so generating needs no running server.
const schema = process.env.ROSTER_SCHEMA ?? 'schema.graphql';

const config: CodegenConfig = {
  schema,
  documents: ['examples/client/operations.ts', 'examples/sync/operations.ts', 'examples/live-checkin/operations.ts'],
  // Relative imports in the output end in .js, as NodeNext needs.
  importExtension: '.js',
  generates: {
    'examples/client/generated/': {
      preset: 'client',
      // Plain strings, not graphql-js ASTs: fetch sends them as they are, with no GraphQL library at run time.
      config: { documentMode: 'string', useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: 'string' } },
      presetConfig: { fragmentMasking: false },
    },
  },
};

export default config;
