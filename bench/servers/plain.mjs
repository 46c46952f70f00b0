// The plain alternative a skilled engineer would write for the canonical query, independent of Roster's
// code: Fastify + Mercurius + graphql-jit over the plain peers' SDL, resolvers and statements
// (plain-schema.mjs).
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { resolvers, schema, viewerOf } from './plain-schema.mjs';

const app = Fastify({ logger: false });
app.addHook('preHandler', async (request, reply) => {
  request.viewer = await viewerOf(request.headers.authorization);
  if (!request.viewer) return reply.code(401).header('WWW-Authenticate', 'Bearer').send({ error: 'invalid_token' });
});
await app.register(mercurius, {
  schema,
  resolvers,
  path: '/graphql',
  jit: 1,
  context: (request) => ({ viewer: request.viewer }),
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.send?.('ready');
