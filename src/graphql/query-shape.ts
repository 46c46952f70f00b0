// How big a document is, measured before it runs: one linear walk (each fragment measured once) that
// stops at the first limit of limits.ts it passes.
import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type ArgumentNode,
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
import { MAX_NODE_IDS } from './node-lookup.js';
import { DEFAULT_PAGE_SIZE } from './pagination.js';

import { LIMITS, shapeOverLimit, type QueryShape } from './limits.js';

/** Unwinds a walk the moment a running total passes a shape limit. */
class LimitPassed extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A fragment measured at depth 0 and multiplier 1, with the response names it adds where it is spread. */
interface Measured {
  shape: QueryShape;
  names: ReadonlyMap<string, number>;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  defaults: ReadonlyMap<string, ValueNode>;
  /** Each fragment, measured once; `null` while being measured. */
  measured: Map<string, Measured | null>;
  /** The document check: stops at the first limit passed, and counts response names per selection set. */
  stopAtLimits: boolean;
  /** Response names counted so far: a fragment's are counted again at each spread. */
  merges: number;
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

/** How many items a list argument holds: a literal's length, a variable's, else the most allowed. */
function listLength(value: ValueNode | undefined, walk: Walk, most: number): number {
  if (value?.kind === Kind.LIST) return value.values.length;
  if (value?.kind !== Kind.VARIABLE) return value ? 1 : 0; // a single value is coerced to a list of one
  const name = value.name.value;
  const sent = Object.hasOwn(walk.variables, name) ? walk.variables[name] : undefined;
  if (Array.isArray(sent)) return sent.length;
  return sent === undefined ? listLength(walk.defaults.get(name), walk, most) : most;
}

/**
 * How many items a list field may return: a connection's `first` or `last` (default 100), the ids
 * `Query.nodes` is given, an introspection list's longest.
 */
function listSize(
  walk: Walk,
  parent: GraphQLNamedType | undefined,
  name: string,
  type: GraphQLNamedType | undefined,
  args: readonly ArgumentNode[] | undefined,
): number | undefined {
  const argument = (n: string) => args?.find((a) => a.name.value === n)?.value;
  if (type?.name.endsWith('Connection')) {
    const size = intArgument(argument('first'), walk) ?? intArgument(argument('last'), walk);
    return Math.max(0, size ?? DEFAULT_PAGE_SIZE);
  }
  if (parent && parent === walk.schema.getQueryType() && name === 'nodes') {
    return listLength(argument('ids'), walk, MAX_NODE_IDS);
  }
  return parent && introspectionListSizes(walk.schema).get(`${parent.name}.${name}`);
}

/** Every total only grows, so one past a limit now is past it for the whole document: stop here. */
function check(walk: Walk, total: QueryShape): void {
  const reason = walk.stopAtLimits ? shapeOverLimit(total) : undefined;
  if (reason) throw new LimitPassed(reason);
}

/** Adds a fragment's shape, spread at `depth`. */
function add(walk: Walk, total: QueryShape, part: QueryShape, depth: number, multiplier: number) {
  total.depth = Math.max(total.depth, depth + part.depth);
  total.aliases += part.aliases;
  total.fields += part.fields;
  total.directives += part.directives;
  total.nodes += multiplier * part.nodes;
  check(walk, total);
}

/**
 * Counts `count` more selections of a response name in a selection set (the document check only):
 * validation compares every pair of them, and this counting is itself bounded.
 */
function addName(walk: Walk, names: Map<string, number>, name: string, count: number): void {
  if (!walk.stopAtLimits) return;
  if (++walk.merges > LIMITS.maxMerges) {
    throw new LimitPassed(`Query merges more than the maximum of ${LIMITS.maxMerges} fields across its fragments.`);
  }
  const now = (names.get(name) ?? 0) + count;
  names.set(name, now);
  if (now > LIMITS.maxRepeats) {
    throw new LimitPassed(
      `Query repeats a field more than the maximum of ${LIMITS.maxRepeats} times in one selection set.`,
    );
  }
}

/** A fragment, measured once per walk: spreading it again costs one addition, not a second walk. */
function fragmentShape(walk: Walk, name: string): Measured | undefined {
  const known = walk.measured.get(name);
  if (known !== undefined) return known ?? undefined; // null: a cycle, which validation reports
  const fragment = walk.fragments.get(name);
  if (!fragment) return undefined;
  walk.measured.set(name, null);
  const measured = { shape: emptyShape(), names: new Map<string, number>() };
  measured.shape.directives = fragment.directives?.length ?? 0;
  check(walk, measured.shape);
  const type = walk.schema.getType(fragment.typeCondition.name.value);
  selectionSet(walk, fragment.selectionSet, type, 0, 1, measured.shape, measured.names);
  walk.measured.set(name, measured);
  return measured;
}

/**
 * Adds a selection set's fields to `total`. `depth` is the depth of the field that owns the set;
 * `multiplier` how many times it may be returned; `names` counts the set's response names, those of
 * its inline fragments and spread fragments included (validation merges them into one level).
 */
function selectionSet(
  walk: Walk,
  set: SelectionSetNode,
  type: GraphQLNamedType | undefined,
  depth: number,
  multiplier: number,
  total: QueryShape,
  names: Map<string, number>,
): void {
  for (const selection of set.selections) {
    total.directives += selection.directives?.length ?? 0;
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const inner = fragmentShape(walk, selection.name.value);
      if (!inner) continue;
      add(walk, total, inner.shape, depth, multiplier);
      for (const [name, count] of inner.names) addName(walk, names, name, count);
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const inner = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      selectionSet(walk, selection.selectionSet, inner, depth, multiplier, total, names);
      continue;
    }
    const name = selection.name.value;
    const field = fieldOf(walk.schema, type, name);
    const fieldType = field ? getNamedType(field.type) : undefined;
    total.depth = Math.max(total.depth, depth + 1);
    total.fields += 1;
    if (selection.alias) total.aliases += 1;
    const size = listSize(walk, type, name, fieldType, selection.arguments);
    if (size !== undefined) total.nodes += multiplier * size;
    check(walk, total);
    addName(walk, names, selection.alias?.value ?? name, 1);
    if (selection.selectionSet) {
      const inner = multiplier * Math.max(size ?? 1, 1);
      selectionSet(walk, selection.selectionSet, fieldType, depth + 1, inner, total, new Map());
    }
  }
  check(walk, total); // the directives of an empty inline fragment or an unknown spread
}

function operationShape(walk: Walk, operation: OperationDefinitionNode): QueryShape {
  const shape = emptyShape();
  shape.directives = operation.directives?.length ?? 0;
  for (const v of operation.variableDefinitions ?? []) shape.directives += v.directives?.length ?? 0;
  check(walk, shape);
  const root = walk.schema.getRootType(operation.operation) ?? undefined;
  const { selections } = operation.selectionSet;
  // What every schema tool sends is one `__schema` at the root: its lists are free, its fields count.
  const schemaQuery = selections.find((s) => s.kind === Kind.FIELD && s.name.value === '__schema' && !s.alias);
  const names = new Map<string, number>();
  if (schemaQuery) {
    const free = emptyShape();
    selectionSet(walk, { kind: Kind.SELECTION_SET, selections: [schemaQuery] }, root, 0, 1, free, names);
    add(walk, shape, { ...free, nodes: 0 }, 0, 1);
  }
  const rest = schemaQuery ? selections.filter((s) => s !== schemaQuery) : selections;
  selectionSet(walk, { kind: Kind.SELECTION_SET, selections: rest }, root, 0, 1, shape, names);
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
    merges: 0,
  };
  return operationShape(walk, operation);
}

/**
 * The first shape limit (depth, aliases, fields, directives, repeats, merges) any operation or
 * fragment of the document passes; stops walking the moment one is passed. Needs no validation
 * first: unknown fields, types and fragments count without type information, a fragment cycle once.
 */
export function documentOverLimit(schema: GraphQLSchema, document: DocumentNode): string | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const walk: Walk = {
    schema,
    fragments,
    variables: {},
    defaults: new Map(),
    measured: new Map(),
    stopAtLimits: true,
    merges: 0,
  };
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
