// Roster's own stack written plainly for the canonical query: Express 5 + Apollo Server 5 and graphql-js
// over the plain peers' SDL, resolvers and statements (plain-schema.mjs); no limits, logs or metrics.
// PLAIN_DATA=memory makes it the stack's floor: each event and each event's longest page read once, then
// served from memory, so a request costs only the framework's own work.
import { createServer } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { requireViewer, resolvers, schema } from './plain-schema.mjs';

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

const apollo = new ApolloServer({
  typeDefs: schema,
  resolvers: process.env.PLAIN_DATA === 'memory' ? fromMemory : resolvers,
});
await apollo.start();
const app = express();
app.post(
  '/graphql',
  requireViewer,
  express.json(),
  expressMiddleware(apollo, { context: async ({ req }) => ({ viewer: req.viewer }) }),
);
createServer(app).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
