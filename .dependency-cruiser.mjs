// The layering of src/ (docs/architecture.md): folders are layers and imports only point down.
//   entry points   src/server.ts, src/roster.ts, src/startup.ts, src/cli/
//   routers        src/http/, src/graphql/ (with src/generated/: codegen's mappers name graphql's models and
//                  context), src/oidc/ (the OpenID provider), src/pages/ (the browser pages), src/observability/,
//                  src/webhooks/ (the outbound edge: one webhook delivery attempt)
//   services       src/services/
//   stores         src/stores/ (the only home of SQL)
//   leaf           src/lib/ (imports nothing of the app), src/config.ts (only src/lib: it checks settings with its helpers)
// Type-only imports count: a type from a higher layer couples as surely as a value does.

const ENTRY = '^src/(server\\.ts|roster\\.ts|startup\\.ts|cli/)';
const ROUTERS = '^src/(http|graphql|generated|oidc|pages|observability|webhooks)/';
const SERVICES = '^src/services/';
const STORES = '^src/stores/';
const LEAF = '^src/(lib/|config\\.ts$)';
const LAYERS = [ENTRY, ROUTERS, SERVICES, STORES, LEAF];

/** A rule for one layer: it may import only the layers listed (its own included) and packages. */
const layer = (name, from, mayImport, why) => ({
  name,
  comment: `${why} (.dependency-cruiser.mjs)`,
  severity: 'error',
  from: { path: from },
  to: mayImport.length ? { path: '^src/', pathNot: mayImport } : { path: '^src/' },
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle: one of these modules must stop importing the other (move the shared part down).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    layer(
      'routers-import-down',
      ROUTERS,
      [ROUTERS, SERVICES, STORES, LEAF],
      'src/http, graphql, oidc, pages, observability and webhooks may import services, stores and the leaf, never an entry point',
    ),
    layer(
      'services-import-down',
      SERVICES,
      [SERVICES, STORES, LEAF],
      'src/services may import stores and the leaf, never a router or an entry point',
    ),
    layer('stores-import-down', STORES, [STORES, LEAF], 'src/stores may import only the leaf (src/lib, src/config.ts)'),
    layer(
      'lib-is-a-leaf',
      '^src/lib/',
      ['^src/lib/'],
      'src/lib imports nothing of the app: move the helper it needs into lib',
    ),
    layer('config-is-a-leaf', '^src/config\\.ts$', ['^src/lib/'], 'src/config.ts imports only src/lib'),
    {
      name: 'pages-do-not-import-the-provider',
      comment:
        'src/oidc renders the sign-out pages of src/pages, so the pages never import the provider: share through services',
      severity: 'error',
      from: { path: '^src/pages/' },
      to: { path: '^src/oidc/' },
    },
    {
      name: 'only-stores-touch-the-database',
      comment:
        "The database drivers and the query builder are the stores' alone: ask a store (src/stores/) for what you need",
      severity: 'error',
      from: { path: '^src/', pathNot: STORES },
      to: { path: '^node_modules/(knex|pg|better-sqlite3|pg-copy-streams)/' },
    },
    {
      name: 'services-speak-no-http',
      comment:
        "Services take and return domain values and throw domain errors; statuses, headers and requests are the routers'",
      severity: 'error',
      from: { path: SERVICES },
      to: {
        path: '^(node_modules/(express|cookie-parser|cors|csrf-csrf|negotiator|@apollo|@as-integrations)/|(node:)?https?$)',
      },
    },
    {
      name: 'every-folder-is-a-layer',
      comment: 'A new file or folder under src/ belongs to a layer: add it to .dependency-cruiser.mjs',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS },
      to: { path: '^src/' },
    },
    {
      name: 'examples-stand-alone',
      comment: "examples/ is what a client developer copies: it imports packages and itself, never Roster's own code",
      severity: 'error',
      from: { path: '^examples/' },
      to: { path: '^(src|tests)/' },
    },
    {
      name: 'src-not-to-dev-dependencies',
      comment: 'The production install has no devDependencies: src/ may import them for types only',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-non-package-json',
      comment: 'A package that package.json does not list: it is there only as another package’s dependency',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to no file',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      // A types-only package (@graphql-typed-document-node/core) names its file in `typings`, not `main`.
      mainFields: ['main', 'types', 'typings'],
    },
  },
};
