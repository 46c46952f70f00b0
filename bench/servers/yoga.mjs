// GraphQL Yoga serving the same schema, resolvers and data.
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { peerSetup, resolvers, typeDefs } from './peer-setup.mjs';

const { config, contextFor } = await peerSetup();
const yoga = createYoga({
  schema: createSchema({ typeDefs, resolvers }),
  graphqlEndpoint: '/graphql',
  logging: false,
  maskedErrors: true,
  context: ({ request }) => contextFor(request.headers.get('authorization') ?? undefined),
});
createServer(yoga).listen(config.port, '127.0.0.1', () => process.send?.('ready'));
