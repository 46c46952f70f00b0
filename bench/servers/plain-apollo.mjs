// Roster's own stack written plainly for the canonical query: Express 5 + Apollo Server 5 and graphql-js
// over the plain peers' SDL, resolvers and statements (plain-schema.mjs); no limits, logs or metrics.
// PLAIN_DATA=memory makes it the stack's floor: each event and each event's longest page read once, then
// served from memory, so a request costs only the framework's own work.
// PLAIN_TRACING=1 (with an OTLP endpoint set, bench/tracing.mjs) traces it with Roster's own instrumentation
// and SDK setup: a span for the request, one for the operation and one for each of its two statements.
import { createServer } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { data, requireViewer, resolvers, schema } from './plain-schema.mjs';

const kept = new Map();
const once = (key, read) => {
  let value = kept.get(key);
  if (value === undefined) kept.set(key, (value = read()));
  return value;
};
const fromMemory = {
  Query: {
    event: (root, args, context) =>
      once(`event ${args.slug} ${context.viewer.kind} ${context.viewer.actingUserId}`, () =>
        resolvers.Query.event(root, args, context),
      ),
  },
  Event: {
    // The event's longest page (100) read once per kind of viewer; every shorter page is a slice of it.
    async registrations(event, { first }, context) {
      if (!event.organizer || first < 0 || first > 100) return resolvers.Event.registrations(event, { first }, context);
      const page = await once(`page ${event.id} ${context.viewer.kind}`, () =>
        resolvers.Event.registrations(event, { first: 100 }, context),
      );
      return { nodes: page.nodes.slice(0, first) };
    },
  },
};

/** The same resolvers, each statement in a span of its own (under the request's, the active one). */
async function traced(system) {
  const { startQuerySpan, endQuerySpan } = await import('../../dist/stores/query-spans.js');
  const spanned =
    (text, resolve) =>
    async (...args) => {
      const span = startQuerySpan(system, text);
      try {
        const result = await resolve(...args);
        if (span) endQuerySpan(span);
        return result;
      } catch (err) {
        if (span) endQuerySpan(span, err);
        throw err;
      }
    };
  return {
    Query: { event: spanned(data.statements.event, resolvers.Query.event) },
    Event: { registrations: spanned(data.statements.page, resolvers.Event.registrations) },
  };
}

const tracing = process.env.PLAIN_TRACING === '1';
const plugins = [];
const app = express();
if (tracing) {
  const [{ tracingSettings }, { startTracing }, { httpSpans }, { graphqlTracing }] = await Promise.all([
    import('../../dist/lib/tracing-settings.js'),
    import('../../dist/observability/tracing.js'),
    import('../../dist/observability/http-spans.js'),
    import('../../dist/graphql/plugins/tracing.js'),
  ]);
  const settings = tracingSettings(process.env, (message) => new Error(message));
  if (!settings) throw new Error('PLAIN_TRACING=1 needs an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT)');
  await startTracing(settings, { warn: (fields, message) => console.error(message, fields) });
  app.use(httpSpans());
  plugins.push(graphqlTracing({ document: false }).plugin);
}
const apollo = new ApolloServer({
  typeDefs: schema,
  resolvers:
    process.env.PLAIN_DATA === 'memory'
      ? fromMemory
      : tracing
        ? await traced(process.env.DATABASE_URL?.startsWith('postgres') ? 'postgresql' : 'sqlite')
        : resolvers,
  plugins,
});
await apollo.start();
app.post(
  '/graphql',
  requireViewer,
  express.json(),
  expressMiddleware(apollo, { context: async ({ req }) => ({ viewer: req.viewer }) }),
);
createServer(app).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
