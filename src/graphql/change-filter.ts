import type { ChangeType as GraphqlChangeType, InputMaybe } from '../generated/graphql.js';
import type { ChangeFilter } from '../stores/change-store.js';
import { BadUserInputError } from './errors.js';
import { changeTypeOf } from './resolvers/Change.js';

/** Longer than any slug: such an `event` names none. */
const MAX_SLUG_ARGUMENT = 200;

/** The `event` and `types` arguments of `Query.changes` and `Subscription.changes`, checked. */
export function changeFilterOf(args: {
  event?: InputMaybe<string>;
  types?: InputMaybe<GraphqlChangeType[]>;
}): ChangeFilter {
  const { event, types } = args;
  if (event && event.length > MAX_SLUG_ARGUMENT) {
    throw new BadUserInputError(`\`event\` is a slug of at most ${MAX_SLUG_ARGUMENT} characters.`, 'event');
  }
  return { eventSlug: event ?? undefined, types: types?.map(changeTypeOf) };
}
