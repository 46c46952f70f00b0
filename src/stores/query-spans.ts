import { context, SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { Knex } from 'knex';
import { errorType, recordingParent, tracer } from '../lib/tracing.js';

// SQL spans (the database client semantic conventions): one per statement knex runs, under the span of the
// request (or webhook delivery) that ran it. The statement with its placeholders only, never its values.

export type DbSystem = 'sqlite' | 'postgresql';

/** Statements begun and not yet answered, past which the oldest are ended: a stream's never is. */
const MAX_OPEN = 1000;

const OPERATION = /^\s*(\w+)/;
/** The table a simple statement names first: `from x`, `into x`, `update x`. */
const TARGET = /\b(?:from|into|update)\s+[`"]?(\w+)/i;

/** The fields of the statements seen lately: the same few statements run on every request. */
const FIELDS_KEPT = 500;
// Keyed by the statement itself, per system: its hash is computed once per string, not per lookup.
const fieldsBySql: Record<DbSystem, Map<string, { name: string; attributes: Attributes }>> = {
  sqlite: new Map(),
  postgresql: new Map(),
};

/** The span's name and attributes for one statement (exported for the tests). */
export function querySpanFields(system: DbSystem, sql: string): { name: string; attributes: Attributes } {
  const kept = fieldsBySql[system];
  let fields = kept.get(sql);
  if (!fields) {
    if (kept.size >= FIELDS_KEPT) kept.clear();
    kept.set(sql, (fields = parseFields(system, sql)));
  }
  return fields;
}

function parseFields(system: DbSystem, sql: string): { name: string; attributes: Attributes } {
  const operation = OPERATION.exec(sql)?.[1]?.toUpperCase();
  const target = TARGET.exec(sql)?.[1];
  const attributes: Attributes = { 'db.system.name': system, 'db.query.text': sql };
  if (operation) attributes['db.operation.name'] = operation;
  if (target) attributes['db.collection.name'] = target;
  const name = operation ? (target ? `${operation} ${target}` : operation) : system;
  return { name, attributes };
}

/** Starts a statement's span under the current one, or returns undefined when nothing is being recorded. */
export function startQuerySpan(system: DbSystem, sql: string): Span | undefined {
  if (!recordingParent()) return undefined;
  const { name, attributes } = querySpanFields(system, sql);
  // The active context holds the parent already: no new context is made for each statement. The
  // attributes are set after the start: the SDK checks them once that way, twice when given to startSpan.
  return tracer().startSpan(name, { kind: SpanKind.CLIENT }, context.active()).setAttributes(attributes);
}

/** Ends a statement's span; a failure's status names its type only (knex's message quotes the bound values). */
export function endQuerySpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.setAttribute('error.type', errorType(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

interface QueryEvent {
  __knexQueryUid?: string;
  sql?: string;
}

/**
 * Makes a span of every statement `db` runs, from knex's query events (keyed by their query id). Called
 * only when tracing is on: with it off no listener is attached, and knex's events cost what they did.
 * knex's own BEGIN and COMMIT carry no query id and get no span.
 */
export function traceQueries(db: Knex, system: DbSystem): void {
  const open = new Map<string, Span>();
  db.on('query', (query: QueryEvent) => {
    const uid = query.__knexQueryUid;
    if (!uid || typeof query.sql !== 'string') return;
    const span = startQuerySpan(system, query.sql);
    if (!span) return;
    if (open.size >= MAX_OPEN) {
      const [oldest, stale] = open.entries().next().value!;
      open.delete(oldest);
      stale.end();
    }
    open.set(uid, span);
  });
  const settle = (query: QueryEvent | undefined, err?: unknown) => {
    const uid = query?.__knexQueryUid;
    const span = uid === undefined ? undefined : open.get(uid);
    if (!span) return;
    open.delete(uid!);
    endQuerySpan(span, err);
  };
  db.on('query-response', (_response: unknown, query: QueryEvent) => settle(query));
  db.on('query-error', (err: unknown, query: QueryEvent) => settle(query, err));
}
