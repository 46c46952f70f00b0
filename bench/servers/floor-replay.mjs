// The floor of Roster's stack for a replayed answer: Express 5 + express.json, the bearer token looked up as
// the plain peers do, and each answer computed once (graphql-js over plain-schema.mjs) and then written from a
// Map keyed by token, Accept and body. What any Express 5 build spends to replay an answer, before a check of
// its own (no freshness read, CORS, rate limit, ETag, logs or metrics).
import { createServer } from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import express from 'express';
import { graphql } from 'graphql';
import { requireViewer, resolvers, schema } from './plain-schema.mjs';

const executable = makeExecutableSchema({ typeDefs: schema, resolvers });
const kept = new Map();
const app = express();
app.post('/graphql', requireViewer, express.json(), async (req, res) => {
  const key = `${req.headers.authorization}\n${req.headers.accept}\n${JSON.stringify(req.body)}`;
  let body = kept.get(key);
  if (body === undefined) {
    const { query, variables } = req.body;
    const result = await graphql({
      schema: executable,
      source: query,
      variableValues: variables,
      contextValue: { viewer: req.viewer },
    });
    kept.set(key, (body = JSON.stringify(result)));
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/graphql-response+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
});
createServer(app).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
