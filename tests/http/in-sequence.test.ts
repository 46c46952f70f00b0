import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { inSequence } from '../../src/http/in-sequence.js';

// Handlers run as one must behave as Express runs them listed in one `use`: in order, an error (thrown,
// rejected or passed to next) skipping the rest to the error handler, the last next() going on.
let server: Server;
let base: string;
const ran: string[] = [];

const mark =
  (name: string): RequestHandler =>
  (_req, _res, next) => {
    ran.push(name);
    next();
  };

beforeAll(async () => {
  const app = express();
  app.use(
    '/ok',
    inSequence(mark('a'), async (_req, _res, next) => {
      await new Promise((r) => setTimeout(r, 5));
      ran.push('b');
      next();
    }),
  );
  app.use('/ok', (_req, res) => {
    ran.push('after');
    res.send('reached');
  });
  app.use(
    '/throws',
    inSequence(
      mark('a'),
      () => {
        throw new Error('thrown');
      },
      mark('never'),
    ),
  );
  app.use(
    '/rejects',
    inSequence(
      mark('a'),
      async () => {
        await Promise.resolve();
        throw new Error('rejected');
      },
      mark('never'),
    ),
  );
  // A promise rejected with nothing still reaches the error handler with an error.
  app.use(
    '/rejects-empty',
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
    inSequence(() => Promise.reject(undefined), mark('never')),
  );
  app.use(
    '/passes',
    inSequence(mark('a'), (_req, _res, next) => next(new Error('passed')), mark('never')),
  );
  app.use(
    '/answers',
    inSequence(mark('a'), (_req, res) => void res.send('early'), mark('never')),
  );
  app.use((_req, res) => void res.status(404).send('fell through'));
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    ran.push('error');
    res.status(500).send(err.message);
  };
  app.use(onError);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => (ran.length = 0));

test.each([
  ['/ok', 200, 'reached', ['a', 'b', 'after']],
  ['/throws', 500, 'thrown', ['a', 'error']],
  ['/rejects', 500, 'rejected', ['a', 'error']],
  ['/rejects-empty', 500, 'Rejected promise', ['error']],
  ['/passes', 500, 'passed', ['a', 'error']],
  ['/answers', 200, 'early', ['a']],
])('%s', async (path, status, body, order) => {
  const res = await fetch(`${base}${path}`);
  expect(res.status).toBe(status);
  expect(await res.text()).toBe(body);
  expect(ran).toEqual(order);
});
