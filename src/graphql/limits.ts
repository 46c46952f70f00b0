/** Limits checked before execution (docs/api.md "Errors and limits"). */
export const LIMITS = {
  /** The standard introspection query's (`ofType` 9 levels deep); this API's own fields nest 6 deep at most. */
  maxDepth: 15,
  maxAliases: 30,
  maxFields: 500,
  maxDirectives: 50,
  /** Selections of one response name in one selection set: validation compares each pair of them. */
  maxRepeats: 50,
  /** Response names counted into selection sets, fragments' at every spread: bounds the analysis itself. */
  maxMerges: 10_000,
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
export function shapeOverLimit(shape: QueryShape): string | undefined {
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
