import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { buildSchema, isNonNullType, type GraphQLObjectType } from 'graphql';
import { EVENT_FIELDS, type EventFieldSpec } from '../../src/lib/event-fields.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// The table names things declared elsewhere (columns, schema fields, option spellings): each must exist there.

const FIELDS = EVENT_FIELDS as readonly EventFieldSpec[];
const database = useMigratedDatabase();

test('every field has a column of the migrated events table, which may be empty exactly when the field may be', async () => {
  const columns = await database.db('events').columnInfo();
  for (const f of FIELDS) {
    expect({ field: f.prop, nullable: columns[f.column]?.nullable }).toEqual({ field: f.prop, nullable: !!f.nullable });
  }
});

test('every field shown in GraphQL is a field of Event in schema.graphql, nullable exactly when the field is', () => {
  const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
  const event = schema.getType('Event') as GraphQLObjectType;
  const shown = FIELDS.filter((f) => f.graphql !== undefined);
  expect(shown.length).toBeGreaterThan(0);
  for (const f of shown) {
    const type = event.getFields()[f.graphql!]?.type;
    expect({ field: f.graphql, nullable: type && !isNonNullType(type) }).toEqual({
      field: f.graphql,
      nullable: !!f.nullable,
    });
  }
});

test("every CLI option is spelled as the field's key, so a refused value names the option given", () => {
  // The CLI names a refused field `--<key>` with underscores as hyphens (cli/main.ts).
  for (const f of FIELDS.filter((field) => field.cli)) {
    expect(new Option(f.cli!.flag).long).toBe(`--${f.key.replaceAll('_', '-')}`);
  }
  expect(FIELDS.some((f) => f.cli)).toBe(true);
});

test('every field is one of three: required, nullable, or given an initial value', () => {
  for (const f of FIELDS) {
    expect({ field: f.prop, ways: [f.required, f.nullable, f.initial].filter((x) => x !== undefined).length }).toEqual({
      field: f.prop,
      ways: 1,
    });
  }
});
