// Roster's own stack written plainly for the canonical query: Express 5 + Apollo Server 5 and graphql-js
// over the plain peers' SDL, resolvers and statements (plain-schema.mjs); no limits, logs or metrics.
import { createServer } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { resolvers, schema, viewerOf } from './plain-schema.mjs';

const apollo = new ApolloServer({ typeDefs: schema, resolvers });
await apollo.start();
const app = express();
app.post(
  '/graphql',
  async (req, res, next) => {
    req.viewer = await viewerOf(req.headers.authorization);
    if (!req.viewer) return void res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'invalid_token' });
    next();
  },
  express.json(),
  expressMiddleware(apollo, { context: async ({ req }) => ({ viewer: req.viewer }) }),
);
createServer(app).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
