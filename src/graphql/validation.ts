import { GraphQLError, type ValidationRule } from 'graphql';

/** graphql 16 only fails unsupported operation types at execution; reject them as invalid documents instead. */
export const KnownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(node) {
    const schema = context.getSchema();
    const root =
      node.operation === 'query'
        ? schema.getQueryType()
        : node.operation === 'mutation'
          ? schema.getMutationType()
          : schema.getSubscriptionType();
    if (!root) {
      context.reportError(
        new GraphQLError(`This API is read-only: the schema has no ${node.operation} type.`, { nodes: node }),
      );
    }
  },
});
