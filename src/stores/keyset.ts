import type { Knex } from 'knex';
import type { Page } from './types.js';

/**
 * One keyset page of `query` by its `column` (a unique, indexed id): rows after `afterId`, in id order.
 * Any page costs what the first does, unlike OFFSET.
 */
export async function keysetPage<T>(
  query: Knex.QueryBuilder,
  column: string,
  first: number,
  afterId: number | null,
  map: (row: Record<string, unknown>) => T,
): Promise<Page<T>> {
  if (afterId !== null) void query.andWhere(column, '>', afterId);
  const rows = (await query.orderBy(column, 'asc').limit(first + 1)) as Record<string, unknown>[];
  return { rows: rows.slice(0, first).map(map), hasNextPage: rows.length > first };
}
