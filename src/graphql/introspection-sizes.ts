import {
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';

const cache = new WeakMap<GraphQLSchema, ReadonlyMap<string, number>>();

const longest = (lengths: number[]): number => lengths.reduce((a, b) => Math.max(a, b), 0);

/**
 * The most items each introspection list (`"__Type.fields"`, …) can hold in this schema: what the
 * cost counts for it, as `first` is for a connection. Read off the schema once.
 */
export function introspectionListSizes(schema: GraphQLSchema): ReadonlyMap<string, number> {
  let sizes = cache.get(schema);
  if (sizes) return sizes;
  const types = Object.values(schema.getTypeMap());
  const withFields = types.filter((t) => isObjectType(t) || isInterfaceType(t));
  const fields = withFields.flatMap((t) => Object.values(t.getFields()) as GraphQLField<unknown, unknown>[]);
  sizes = new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', schema.getDirectives().length],
    ['__Type.fields', longest(withFields.map((t) => Object.keys(t.getFields()).length))],
    ['__Type.interfaces', longest(withFields.map((t) => t.getInterfaces().length))],
    ['__Type.possibleTypes', longest(types.filter(isAbstractType).map((t) => schema.getPossibleTypes(t).length))],
    ['__Type.enumValues', longest(types.filter(isEnumType).map((t) => t.getValues().length))],
    ['__Type.inputFields', longest(types.filter(isInputObjectType).map((t) => Object.keys(t.getFields()).length))],
    ['__Field.args', longest(fields.map((f) => f.args.length))],
    ['__Directive.args', longest(schema.getDirectives().map((d) => d.args.length))],
  ]);
  cache.set(schema, sizes);
  return sizes;
}
