import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { introspectionListSizes } from './introspection-sizes.js';
import { DEFAULT_PAGE_SIZE } from './pagination.js';

/** Limits checked before execution (README "Errors and limits"). */
export const LIMITS = {
  /** The standard introspection query's (`ofType` 9 levels deep); this API's own fields nest 6 deep at most. */
  maxDepth: 15,
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
  /** Nodes the query may return: list sizes (a connection's `first`) multiplied down the tree. */
  nodes: number;
}

/** GitHub's method: nodes / 100, at least 1. */
export const costOf = (nodes: number): number => Math.max(1, Math.round(nodes / 100));

/** The first shape limit (all but the cost) the shape passes, as a one-line reason. */
function shapeOverLimit(shape: QueryShape): string | undefined {
  if (shape.depth > LIMITS.maxDepth) return `Query nests deeper than the maximum depth of ${LIMITS.maxDepth}.`;
  if (shape.aliases > LIMITS.maxAliases) return `Query has more than the maximum of ${LIMITS.maxAliases} aliases.`;
  if (shape.fields > LIMITS.maxFields) return `Query selects more than the maximum of ${LIMITS.maxFields} fields.`;
  if (shape.directives > LIMITS.maxDirectives) {
    return `Query uses more than the maximum of ${LIMITS.maxDirectives} directives.`;
  }
  return undefined;
}

/** The first limit the shape breaks, as a one-line reason; undefined when within every limit. */
export function overLimit(shape: QueryShape): string | undefined {
  const reason = shapeOverLimit(shape);
  if (reason) return reason;
  const cost = costOf(shape.nodes);
  if (cost > LIMITS.maxCost) return `Query cost ${cost} exceeds the maximum of ${LIMITS.maxCost}.`;
  return undefined;
}

/** Unwinds a walk the moment a running total passes a shape limit. */
class LimitPassed {
  constructor(readonly reason: string) {}
}

interface Walk {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  defaults: ReadonlyMap<string, ValueNode>;
  /** Each fragment's shape at depth 0 and multiplier 1, measured once; `null` while being measured. */
  measured: Map<string, QueryShape | null>;
  stopAtLimits: boolean;
}

const emptyShape = (): QueryShape => ({ depth: 0, aliases: 0, fields: 0, directives: 0, nodes: 0 });

function intArgument(value: ValueNode | undefined, walk: Walk): number | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind !== Kind.VARIABLE) return undefined;
  const name = value.name.value;
  // A value sent (null included) replaces the variable's default, as graphql-js coerces it.
  if (Object.hasOwn(walk.variables, name)) {
    const sent = walk.variables[name];
    return typeof sent === 'number' ? sent : undefined;
  }
  return intArgument(walk.defaults.get(name), walk);
}

function fieldOf(schema: GraphQLSchema, parent: GraphQLNamedType | undefined, name: string) {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent && parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  const fields = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields() : undefined;
  return fields?.[name] as GraphQLField<unknown, unknown> | undefined;
}

/** How many items a list field may return: a connection's `first` (default 100), an introspection list's longest. */
function listSize(
  walk: Walk,
  parent: GraphQLNamedType | undefined,
  name: string,
  type: GraphQLNamedType | undefined,
  first: ValueNode | undefined,
): number | undefined {
  if (type?.name.endsWith('Connection')) return Math.max(0, intArgument(first, walk) ?? DEFAULT_PAGE_SIZE);
  return parent && introspectionListSizes(walk.schema).get(`${parent.name}.${name}`);
}

function add(walk: Walk, total: QueryShape, part: Omit<QueryShape, 'nodes'>, depth: number) {
  total.depth = Math.max(total.depth, depth + part.depth);
  total.aliases += part.aliases;
  total.fields += part.fields;
  total.directives += part.directives;
  // Every total only grows, so one past a limit now is past it for the whole document: stop here.
  const reason = walk.stopAtLimits ? shapeOverLimit(total) : undefined;
  if (reason) throw new LimitPassed(reason);
}

/** A fragment's shape, measured once per walk: spreading it again costs one addition, not a second walk. */
function fragmentShape(walk: Walk, name: string): QueryShape | undefined {
  const known = walk.measured.get(name);
  if (known !== undefined) return known ?? undefined; // null: a cycle, which validation reports
  const fragment = walk.fragments.get(name);
  if (!fragment) return undefined;
  walk.measured.set(name, null);
  const shape = emptyShape();
  add(walk, shape, { ...emptyShape(), directives: fragment.directives?.length ?? 0 }, 0);
  selectionSet(walk, fragment.selectionSet, walk.schema.getType(fragment.typeCondition.name.value), 0, 1, shape);
  walk.measured.set(name, shape);
  return shape;
}

/**
 * Adds a selection set's fields to `total`. `depth` is the depth of the field that owns the set;
 * `multiplier` how many times it may be returned.
 */
function selectionSet(
  walk: Walk,
  set: SelectionSetNode,
  type: GraphQLNamedType | undefined,
  depth: number,
  multiplier: number,
  total: QueryShape,
): void {
  for (const selection of set.selections) {
    const directives = selection.directives?.length ?? 0;
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const inner = fragmentShape(walk, selection.name.value);
      if (inner) total.nodes += multiplier * inner.nodes;
      add(walk, total, { ...(inner ?? emptyShape()), directives: directives + (inner?.directives ?? 0) }, depth);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      add(walk, total, { ...emptyShape(), directives }, depth);
      const inner = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      selectionSet(walk, selection.selectionSet, inner, depth, multiplier, total);
      continue;
    }
    const name = selection.name.value;
    const field = fieldOf(walk.schema, type, name);
    const fieldType = field ? getNamedType(field.type) : undefined;
    add(walk, total, { depth: 1, aliases: selection.alias ? 1 : 0, fields: 1, directives }, depth);
    const first = selection.arguments?.find((a) => a.name.value === 'first')?.value;
    const size = listSize(walk, type, name, fieldType, first);
    if (size !== undefined) total.nodes += multiplier * size;
    if (selection.selectionSet) {
      const inner = multiplier * Math.max(size ?? 1, 1);
      selectionSet(walk, selection.selectionSet, fieldType, depth + 1, inner, total);
    }
  }
}

function operationShape(walk: Walk, operation: OperationDefinitionNode): QueryShape {
  const shape = emptyShape();
  let directives = operation.directives?.length ?? 0;
  for (const v of operation.variableDefinitions ?? []) directives += v.directives?.length ?? 0;
  add(walk, shape, { ...emptyShape(), directives }, 0);
  const root = walk.schema.getRootType(operation.operation) ?? undefined;
  const { selections } = operation.selectionSet;
  // What every schema tool sends is one `__schema` at the root: its lists are free, its fields count.
  const schemaQuery = selections.find((s) => s.kind === Kind.FIELD && s.name.value === '__schema' && !s.alias);
  if (schemaQuery) {
    const free = emptyShape();
    selectionSet(walk, { kind: Kind.SELECTION_SET, selections: [schemaQuery] }, root, 0, 1, free);
    add(walk, shape, free, 0);
  }
  const rest = schemaQuery ? selections.filter((s) => s !== schemaQuery) : selections;
  selectionSet(walk, { kind: Kind.SELECTION_SET, selections: rest }, root, 0, 1, shape);
  return shape;
}

const defaultsOf = (operation: OperationDefinitionNode) =>
  new Map(
    (operation.variableDefinitions ?? []).flatMap((v) =>
      v.defaultValue ? [[v.variable.name.value, v.defaultValue] as const] : [],
    ),
  );

/**
 * Measures an operation, each fragment once however often it is spread, so the work is linear in
 * the document. Introspection fields count like any other. A list's size is a connection's `first`
 * (its variable's value, else the variable's default, else 100) or an introspection list's longest;
 * the lists of the operation's one unaliased root `__schema` (the standard introspection query) are free.
 */
export function measure(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): QueryShape {
  const walk: Walk = {
    schema,
    fragments: new Map(Object.entries(fragments)),
    variables,
    defaults: defaultsOf(operation),
    measured: new Map(),
    stopAtLimits: false,
  };
  return operationShape(walk, operation);
}

/**
 * The first shape limit (depth, aliases, fields, directives) any operation or fragment of the
 * document passes; stops walking the moment one is passed. Needs no validation first: unknown
 * fields, types and fragments count without type information, and a fragment cycle counts once.
 */
export function documentOverLimit(schema: GraphQLSchema, document: DocumentNode): string | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const walk: Walk = { schema, fragments, variables: {}, defaults: new Map(), measured: new Map(), stopAtLimits: true };
  try {
    for (const d of document.definitions) {
      if (d.kind === Kind.OPERATION_DEFINITION) operationShape(walk, d);
      // An unused fragment is not part of any operation, but validation still walks it.
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragmentShape(walk, d.name.value);
    }
  } catch (err) {
    if (err instanceof LimitPassed) return err.reason;
    throw err;
  }
  return undefined;
}
