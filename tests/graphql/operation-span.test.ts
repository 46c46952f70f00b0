import { parse } from 'graphql';
import { sanitizedDocument } from '../../src/graphql/plugins/tracing.js';

// What `graphql.document` carries when TRACING_GRAPHQL_DOCUMENT asks for it: the shape of the query, never
// the values written into it (tests/observability/tracing.test.ts checks the span itself).
test('string and number literals are replaced; variables, names and the rest stay', () => {
  const document = parse(`
    query Page($after: String) {
      event(slug: "secret-slug") { registrations(first: 25, after: $after) { nodes { id } } }
      more: event(slug: """block secret""") { name }
      x: node(id: "id-123") { id }
      rated(score: 4.5, flag: true, kind: PUBLIC) { id }
    }`);
  const text = sanitizedDocument(document);
  for (const secret of ['secret-slug', 'block secret', 'id-123', '25', '4.5']) expect(text).not.toContain(secret);
  expect(text).toContain('event(slug: "*")');
  expect(text).toContain('registrations(first: 0, after: $after)');
  expect(text).toContain('query Page($after: String)');
  expect(text).toContain('flag: true, kind: PUBLIC');
  // Printed once per document: Apollo's cache hands back the same object for the same query.
  expect(sanitizedDocument(document)).toBe(text);
});
