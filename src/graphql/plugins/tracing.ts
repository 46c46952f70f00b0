import type { ApolloServerPlugin } from '@apollo/server';
import { context, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { print, visit, type DocumentNode } from 'graphql';
import { tracer } from '../../lib/tracing.js';
import type { GraphQLContext } from '../context.js';

// The GraphQL operation span (the GraphQL semantic conventions), added only when tracing is on.

/** The most of a sanitized document a span carries. */
const MAX_DOCUMENT = 8 * 1024;

const sanitizedDocuments = new WeakMap<DocumentNode, string>();

/** The document as printed with every string and number literal replaced: ids, slugs and names stay out. */
export function sanitizedDocument(document: DocumentNode): string {
  let text = sanitizedDocuments.get(document);
  if (text === undefined) {
    const masked = visit(document, {
      StringValue: (node) => ({ ...node, value: '*', block: false }),
      IntValue: (node) => ({ ...node, value: '0' }),
      FloatValue: (node) => ({ ...node, value: '0' }),
    });
    text = print(masked).slice(0, MAX_DOCUMENT);
    // Apollo's document cache hands back the same object for the same query: printed once.
    sanitizedDocuments.set(document, text);
  }
  return text;
}

export interface GraphqlTracing {
  plugin: ApolloServerPlugin<GraphQLContext>;
  /** Runs an operation's execution in its span's context: the resolvers' SQL spans become its children. */
  around: <T>(contextValue: GraphQLContext, execute: () => T) => T;
}

export function graphqlTracing(options: { document: boolean }): GraphqlTracing {
  const spans = new WeakMap<GraphQLContext, Span>();
  const plugin: ApolloServerPlugin<GraphQLContext> = {
    async requestDidStart({ contextValue }) {
      // Each sampler here decides for a whole trace (by the parent, or by the trace id): under a request
      // span not sampled, this one would not be either, and the request is spared its hooks. The flag, not
      // isRecording(): a request span already ended (a timeout's 503, a client gone) still has it.
      const parent = trace.getSpan(context.active());
      if (parent && !(parent.spanContext().traceFlags & TraceFlags.SAMPLED)) return;
      // The semantic conventions' name until the operation is known (a request that does not parse keeps it).
      const span = tracer().startSpan('GraphQL Operation');
      spans.set(contextValue, span);
      return {
        async didResolveOperation({ operation, operationName, document }) {
          if (!operation) return;
          const type = operation.operation;
          const name = operationName ?? operation.name?.value;
          span.updateName(name ? `${type} ${name}` : type);
          span.setAttribute('graphql.operation.type', type);
          if (name) span.setAttribute('graphql.operation.name', name.slice(0, 64));
          if (options.document) span.setAttribute('graphql.document', sanitizedDocument(document));
        },
        async didEncounterErrors({ errors }) {
          const code = errors[0]?.extensions?.code;
          span.setAttribute('error.type', typeof code === 'string' ? code : 'GraphQLError');
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
        async willSendResponse() {
          span.end();
        },
      };
    },
  };
  return {
    plugin,
    around: (contextValue, execute) => {
      const span = spans.get(contextValue);
      return span ? context.with(trace.setSpan(context.active(), span), execute) : execute();
    },
  };
}
