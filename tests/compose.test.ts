import { readFileSync } from 'node:fs';
import { parse as parseEnv } from 'dotenv';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';

// No Docker engine runs here: compose.yaml is read instead, and what it gives the server must be a valid
// production configuration with /metrics on a port of its own, published on the host's loopback only.
const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const compose = parse(read('compose.yaml')) as {
  services: { roster: { environment: Record<string, string>; ports: string[] } };
};
const roster = compose.services.roster;

/** Compose's interpolation as `docker compose up` would do it with only POSTGRES_PASSWORD in the shell. */
const interpolate = (value: string) =>
  value
    .replace(/\$\{POSTGRES_PASSWORD:\?[^}]*\}/g, 'secret')
    .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')
    .replace(/\$\{[^}]*\}/g, '');

test('the compose service sets what production needs, every name a Roster setting', () => {
  const settings = Object.keys(parseEnv(read('.env.example')));
  expect(Object.keys(roster.environment).filter((name) => !settings.includes(name))).toEqual([]);
  expect(roster.environment).toMatchObject({ NODE_ENV: 'production', METRICS_PORT: '9464' });
  for (const name of ['BASE_URL', 'DATABASE_URL', 'TRUST_PROXY']) expect(roster.environment[name]).toBeDefined();
  const env = Object.fromEntries(Object.entries(roster.environment).map(([name, v]) => [name, interpolate(v)]));
  const config = loadConfig(env, false);
  expect(config).toMatchObject({ production: true, metricsPort: 9464, host: '0.0.0.0', trustProxy: false });
  expect(config.databaseUrl).toBe('postgres://roster:secret@postgres:5432/roster');
});

test('the public port is published; the metrics port only on the loopback', () => {
  expect(roster.ports).toContain('4000:4000');
  const metrics = roster.ports.filter((p) => p.endsWith(':9464'));
  expect(metrics).toEqual(['127.0.0.1:9464:9464']);
});
