// Mercurius on Fastify, with graphql-jit (compiled after the first run), serving the same schema, resolvers and data.
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { peerSetup, resolvers, typeDefs } from './peer-setup.mjs';

const { config, contextFor } = await peerSetup();
const app = Fastify({ logger: false });
await app.register(mercurius, {
  schema: makeExecutableSchema({ typeDefs, resolvers }),
  path: '/graphql',
  jit: 1,
  context: (request) => contextFor(request.headers.authorization),
});
await app.listen({ port: config.port, host: '127.0.0.1' });
process.send?.('ready');
