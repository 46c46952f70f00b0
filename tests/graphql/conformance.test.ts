import { serverAudits } from 'graphql-http';
import { useSeededServer } from '../helpers/fixtures.js';

// The graphql-http server audit (GraphQL over HTTP), against the real server with a valid token.
const t = useSeededServer();

test('passes every GraphQL over HTTP audit, MUSTs and SHOULDs, for both media types', async () => {
  const fetchFn = (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${t.fx.tokens.organizerUser}`);
    return fetch(input, { ...init, headers });
  };
  const audits = serverAudits({ url: `${t.server.url}/graphql`, fetchFn });
  expect(audits.length).toBeGreaterThan(40);
  const failures: string[] = [];
  for (const audit of audits) {
    const result = await audit.fn();
    if (result.status !== 'ok') failures.push(`${result.status} ${audit.id} ${audit.name}: ${result.reason}`);
  }
  expect(failures).toEqual([]);
});
