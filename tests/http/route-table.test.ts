import { familyOf, PAGE_PATHS } from '../../src/http/route-format.js';
import { PATHS } from '../../src/http/paths.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { routesOf } from '../helpers/routes.js';

// One table says where each part is mounted: a route outside it would lose its page headers, its error
// format and its metrics label without anyone noticing, so every route the app serves must be in it.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

test('every route the Express app serves belongs to a family of the route table', () => {
  const routes = routesOf(server.express);
  expect(routes.length).toBeGreaterThan(20);
  const orphans = routes.filter((r) => familyOf(r.path) === undefined).map((r) => `${r.method} ${r.path}`);
  expect(orphans).toEqual([]);
});

test('each page of the table answers with the page headers, each API path without them', async () => {
  for (const path of [PATHS.account, `${PATHS.passwordReset}/forgot`]) {
    expect(PAGE_PATHS.some((prefix) => path.startsWith(prefix))).toBe(true);
    const res = await fetch(new URL(path, server.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
  }
  const api = await fetch(new URL(PATHS.healthz, server.url));
  expect(await api.json()).toEqual({ status: 'ok' });
  expect(api.headers.get('content-security-policy')).toBeNull();
});

test('the pages link where the routers are mounted', async () => {
  const page = await (await fetch(new URL(PATHS.account, server.url))).text();
  expect(page).toContain(`action="${PATHS.account}/login"`);
  expect(page).toContain(`href="${PATHS.passwordReset}/forgot"`);
  expect(page).toContain(`href="${PATHS.stylesheet}"`);
  expect((await fetch(new URL(PATHS.stylesheet, server.url))).headers.get('content-type')).toMatch(/^text\/css/);
});
