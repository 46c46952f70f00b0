import { spawn } from 'node:child_process';
import express from 'express';
import { hashPassword } from '../../src/lib/secrets.js';
import { addressKey, LOGIN_LIMITS } from '../../src/services/login-throttle.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { distPath, useBuiltDist } from '../helpers/build.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { accountForm, tally, type SignInForm } from './sign-in-forms.js';

// Which X-Forwarded-For entry is the client is decided by TRUST_PROXY alone: a client cannot pick its own address.
const PASSWORD = 'the right password';
const CLIENT = '203.0.113.7';
const OTHER = '198.51.100.1';

/** Spends CLIENT's whole hourly budget (each attempt for another unknown email, so only the address counts). */
async function exhaust(form: SignInForm, forwardedFor: string) {
  const burst = await Promise.all(
    Array.from({ length: LOGIN_LIMITS.perIp.points }, (_, i) =>
      form.post(`spray${i}@example.com`, 'guess', { 'X-Forwarded-For': forwardedFor }),
    ),
  );
  expect(tally(burst)).toEqual({ 401: LOGIN_LIMITS.perIp.points });
}

/** The status of one more wrong password, sent with this X-Forwarded-For. */
const probe = async (form: SignInForm, forwardedFor: string) =>
  (await form.post('probe@example.com', 'guess', { 'X-Forwarded-For': forwardedFor })).status;

describe.each([
  // One proxy in front (the test client is that proxy: it connects from 127.0.0.1).
  ['a hop count', '1', CLIENT],
  // The proxies by address: the peer (loopback) and an inner one in 10.0.0.0/8.
  ['a list of proxies', 'loopback, 10.0.0.0/8', `${CLIENT}, 10.1.2.3`],
])('TRUST_PROXY as %s', (_name, trustProxy, exhaustedAs) => {
  let server: TestServer;
  let form: SignInForm;

  beforeAll(async () => {
    server = await startServer({ TRUST_PROXY: trustProxy, REQUEST_TIMEOUT_MS: '120000' });
    form = await accountForm(server.url);
    await exhaust(form, exhaustedAs);
  }, 90_000);
  afterAll(() => server.close());

  test('an address the client puts in front of its own does not move it onto a fresh budget', async () => {
    expect(await probe(form, exhaustedAs)).toBe(429);
    expect(await probe(form, `${OTHER}, ${exhaustedAs}`)).toBe(429);
    expect(await probe(form, `10.0.0.1, ${OTHER}, ${exhaustedAs}`)).toBe(429);
    // Not even with a right password.
    await server.stores.users.create({
      email: 'real@example.com',
      name: 'Real',
      passwordHash: await hashPassword(PASSWORD),
    });
    const right = await form.post('real@example.com', PASSWORD, { 'X-Forwarded-For': `${OTHER}, ${exhaustedAs}` });
    expect(right.status).toBe(429);
  });

  test('another client behind the same proxy keeps its own budget', async () => {
    expect(await probe(form, OTHER)).toBe(401);
    expect(await probe(form, `${CLIENT}, ${OTHER}`)).toBe(401);
  });
});

test('with a list that does not name the peer, X-Forwarded-For is not believed at all', async () => {
  const server = await startServer({ TRUST_PROXY: '10.0.0.0/8', REQUEST_TIMEOUT_MS: '120000' });
  try {
    const form = await accountForm(server.url);
    await exhaust(form, CLIENT);
    // Every request is the peer's (127.0.0.1), whatever it claims.
    expect(await probe(form, OTHER)).toBe(429);
    expect(await probe(form, '10.0.0.2')).toBe(429);
  } finally {
    await server.close();
  }
}, 90_000);

describe('IPv6 clients are counted per /64', () => {
  test.each([
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:abcd:ef01:2345:6789', '2001:db8:1:2::/64'],
    ['2001:db8::9', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['192.0.2.7', '192.0.2.7'],
  ])('%s is counted as %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  test('a client that spent its budget gets none back from another address in its /64', async () => {
    const server = await startServer({ TRUST_PROXY: '1', REQUEST_TIMEOUT_MS: '120000' });
    try {
      const form = await accountForm(server.url);
      await exhaust(form, '2001:db8:1:2::1');
      expect(await probe(form, '2001:db8:1:2:ffff:1:2:3')).toBe(429);
      expect(await probe(form, '2001:db8:1:3::1')).toBe(401);
    } finally {
      await server.close();
    }
  }, 90_000);
});

describe('TRUST_PROXY values', () => {
  useBuiltDist(); // the last test starts the built server
  const load = (value: string) =>
    loadConfig({ NODE_ENV: 'test', TRUST_PROXY: value, DATABASE_URL: 'sqlite::memory:' }, false).trustProxy;

  test.each([
    ['', false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.10', ['10.0.0.0/8', '192.168.1.10']],
    ['linklocal,uniquelocal,::1/128,fd00::/8', ['linklocal', 'uniquelocal', '::1/128', 'fd00::/8']],
  ] as const)('%j is accepted, and Express accepts it too', (value, expected) => {
    const parsed = load(value);
    expect(parsed).toEqual(expected);
    expect(() => express().set('trust proxy', parsed)).not.toThrow();
  });

  test.each([
    'true',
    'TRUE',
    'yes',
    '-1',
    '1.5',
    '10.0.0.0/33',
    '300.1.1.1',
    '::1/129',
    'localhost',
    'loopback,',
    '10.0.0.0/8 192.168.0.0/16',
  ])('%j is refused with a ConfigError naming TRUST_PROXY', (value) => {
    expect(() => load(value)).toThrow(ConfigError);
    expect(() => load(value)).toThrow(/^TRUST_PROXY\b/);
  });

  test('true says what to give instead', () => {
    expect(() => load('true')).toThrow(/hop count.*address/);
  });

  test('the server refuses to start with TRUST_PROXY=true, in one line', async () => {
    const proc = spawn(process.execPath, [distPath('server.js')], {
      env: { ...process.env, TRUST_PROXY: 'true', DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A server that started anyway is stopped, so the failure is the assertion, not a hang.
    const stray = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    const code = await new Promise((resolve) => proc.once('exit', resolve));
    clearTimeout(stray);
    expect(code).toBe(1);
    // (On Node 20 oidc-provider also warns about the runtime on import; that line is not ours.)
    const ours = stderr.split('\n').filter((line) => line && !line.startsWith('oidc-provider WARNING'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/^roster: TRUST_PROXY=true .*hop count/);
  }, 20_000);
});
