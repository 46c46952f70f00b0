import {
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionNode,
} from 'graphql';

const CONDITIONAL = new Set(['skip', 'include']);

function conditional(
  selections: readonly SelectionNode[],
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen: Set<string>,
): boolean {
  return selections.some((selection) => {
    if (selection.directives?.some((d) => CONDITIONAL.has(d.name.value))) return true;
    if (selection.kind === Kind.INLINE_FRAGMENT) return conditional(selection.selectionSet.selections, fragments, seen);
    if (selection.kind !== Kind.FRAGMENT_SPREAD || seen.has(selection.name.value)) return false;
    seen.add(selection.name.value);
    const fragment = fragments.get(selection.name.value);
    return fragment !== undefined && conditional(fragment.selectionSet.selections, fragments, seen);
  });
}

/**
 * The subscription whose root field carries @skip or @include, if any. graphql-js 16's validation throws on
 * one whose directive takes a variable (instead of reporting an error), and graphql 17 forbids them.
 */
export function conditionalSubscriptionRoot(document: DocumentNode): OperationDefinitionNode | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return document.definitions.find(
    (d): d is OperationDefinitionNode =>
      d.kind === Kind.OPERATION_DEFINITION &&
      d.operation === OperationTypeNode.SUBSCRIPTION &&
      conditional(d.selectionSet.selections, fragments, new Set()),
  );
}
