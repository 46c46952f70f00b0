import { buildSchema, getIntrospectionQuery, introspectionFromSchema, type IntrospectionQuery } from 'graphql';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { SCHEMA_SDL } from '../../src/graphql/router.js';

// Every type, field, argument and enum value of the API describes itself, as served.
const t = useSeededServer();

/** Names of this API's own parts (not introspection's or the built-in scalars') with no description. */
function undescribed(result: IntrospectionQuery): string[] {
  const missing: string[] = [];
  const check = (name: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(name);
  };
  for (const type of result.__schema.types) {
    if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'ID', 'Float'].includes(type.name)) continue;
    check(type.name, type.description);
    if ('fields' in type) {
      for (const field of type.fields ?? []) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    }
    if ('enumValues' in type) {
      for (const value of type.enumValues ?? []) check(`${type.name}.${value.name}`, value.description);
    }
  }
  return missing;
}

test('the introspection result leaves nothing undescribed', async () => {
  const res = await gql(t.server, t.fx.tokens.organizerUser, getIntrospectionQuery());
  expect(res.body.errors).toBeUndefined();
  const result = res.body.data as unknown as IntrospectionQuery;
  expect(result.__schema.types.map((x) => x.name)).toEqual(expect.arrayContaining(['Node', 'EventConnection']));
  expect(undescribed(result)).toEqual([]);
});

test('the walk would catch a missing description', () => {
  // The same walk over a schema missing one of each kind: the test above is not vacuous.
  const sdl = '"Q" type Query { "f" f(x: Int): E  g: Int } enum E { "a" A B }';
  expect(undescribed(introspectionFromSchema(buildSchema(sdl))).sort()).toEqual(['E', 'E.B', 'Query.f(x)', 'Query.g']);
});

test('activationState stays a String whose description lists the values', async () => {
  const res = await gql(
    t.server,
    t.fx.tokens.organizerUser,
    '{ __type(name: "Registrant") { fields { name description type { kind ofType { name } } } } }',
  );
  const fields = (res.body.data!.__type as { fields: { name: string; description: string; type: unknown }[] }).fields;
  const field = fields.find((f) => f.name === 'activationState')!;
  expect(field.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'String' } });
  for (const value of ['active', 'pending', 'deactivated']) expect(field.description).toContain(`\`${value}\``);
});

test('/graphql/schema.graphql serves the same SDL, Node and the new fields included', async () => {
  const res = await fetch(`${t.server.url}/graphql/schema.graphql`);
  const text = await res.text();
  expect(text).toBe(SCHEMA_SDL);
  for (const part of ['interface Node', 'events(', 'nodes(', 'last: Int', 'before: String']) {
    expect(text).toContain(part);
  }
});
