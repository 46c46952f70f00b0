import {
  getNamedType,
  getNullableType,
  GraphQLObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from './pagination.js';

/** Limits checked before execution (README "Errors and limits"). */
export const LIMITS = {
  maxDepth: 10,
  maxAliases: 30,
  maxFields: 500,
  maxDirectives: 50,
  maxCost: 100,
  /** Tokens the parser reads before giving up: bounds the work any query text can cause. */
  maxTokens: 5000,
} as const;

export interface QueryShape {
  depth: number;
  aliases: number;
  fields: number;
  directives: number;
  /** Nodes the query may return: connection sizes multiplied down the tree. */
  nodes: number;
}

/** GitHub's method: nodes / 100, at least 1. */
export const costOf = (nodes: number): number => Math.max(1, Math.round(nodes / 100));

function intArgument(value: ValueNode | undefined, variables: Record<string, unknown>): number | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const v = variables[value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

/**
 * Measures an operation, fragments expanded; introspection fields (`__schema`, `__type`) are free so
 * schema tools always work. A connection's size is its `first` (default 100).
 */
export function measure(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): QueryShape {
  const shape: QueryShape = { depth: 0, aliases: 0, fields: 0, directives: 0, nodes: 0 };
  const root = schema.getRootType(operation.operation);
  const walk = (
    set: SelectionSetNode,
    type: GraphQLObjectType | undefined,
    depth: number,
    multiplier: number,
    seen: Set<string>,
  ) => {
    for (const selection of set.selections) {
      shape.directives += selection.directives?.length ?? 0;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments[selection.name.value];
        // Validation rejects cycles; `seen` only keeps this walk finite before that.
        if (!fragment || seen.has(fragment.name.value)) continue;
        const inner = schema.getType(fragment.typeCondition.name.value);
        walk(
          fragment.selectionSet,
          isObjectType(inner) ? inner : type,
          depth,
          multiplier,
          new Set(seen).add(fragment.name.value),
        );
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const inner = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        walk(selection.selectionSet, isObjectType(inner) ? inner : type, depth, multiplier, seen);
        continue;
      }
      if (selection.name.value.startsWith('__')) continue;
      shape.fields += 1;
      if (selection.alias) shape.aliases += 1;
      shape.depth = Math.max(shape.depth, depth + 1);
      const field = type?.getFields()[selection.name.value];
      const fieldType = field ? getNamedType(getNullableType(field.type)) : undefined;
      let childMultiplier = multiplier;
      if (fieldType && fieldType.name.endsWith('Connection')) {
        const first = selection.arguments?.find((a) => a.name.value === 'first');
        const size = Math.max(0, intArgument(first?.value, variables) ?? DEFAULT_PAGE_SIZE);
        shape.nodes += multiplier * size;
        childMultiplier = multiplier * Math.max(size, 1);
      }
      if (selection.selectionSet) {
        const next = fieldType && (isObjectType(fieldType) || isInterfaceType(fieldType)) ? fieldType : undefined;
        walk(selection.selectionSet, next as GraphQLObjectType | undefined, depth + 1, childMultiplier, seen);
      }
    }
  };
  if (root) walk(operation.selectionSet, root, 0, 1, new Set());
  return shape;
}

/** The first limit the shape breaks, as a one-line reason; undefined when within every limit. */
export function overLimit(shape: QueryShape): string | undefined {
  if (shape.depth > LIMITS.maxDepth) return `Query depth ${shape.depth} exceeds the maximum of ${LIMITS.maxDepth}.`;
  if (shape.aliases > LIMITS.maxAliases)
    return `Query has ${shape.aliases} aliases; the maximum is ${LIMITS.maxAliases}.`;
  if (shape.fields > LIMITS.maxFields)
    return `Query selects ${shape.fields} fields; the maximum is ${LIMITS.maxFields}.`;
  if (shape.directives > LIMITS.maxDirectives) {
    return `Query uses ${shape.directives} directives; the maximum is ${LIMITS.maxDirectives}.`;
  }
  const cost = costOf(shape.nodes);
  if (cost > LIMITS.maxCost) return `Query cost ${cost} exceeds the maximum of ${LIMITS.maxCost}.`;
  return undefined;
}
