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
  // Reached from a timer, not from Express's own call: only the sequence can catch its throw.
  app.use(
    '/throws-later',
    inSequence(
      (_req, _res, next) => void setTimeout(next, 1),
      () => {
        throw new Error('thrown later');
      },
      mark('never'),
    ),
  );
  // A promise-like that is not a native Promise, rejected.
  app.use(
    '/rejects-thenable',
    inSequence((() => ({
      then: (_ok: unknown, fail: (e: Error) => void) => fail(new Error('thenable')),
    })) as RequestHandler),
  );
  // As in Express, `next('route')` from a middleware goes on to the next one, and `req.next` is the sequence's.
  app.use(
    '/route',
    inSequence(
      mark('a'),
      (_req, _res, next) => next('route'),
      mark('b'),
      (req) => req.next?.(),
      mark('c'),
    ),
  );
  app.use('/route', (_req, res) => void res.send('went on'));
  // `next('router')` leaves the router the sequence is in.
  const inner = express.Router();
  inner.use(inSequence(mark('a'), (_req, _res, next) => next('router'), mark('never')));
  inner.use(mark('never either'));
  app.use('/router', inner);
  app.use('/router', (_req, res) => void res.send('left the router'));
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
  ['/throws-later', 500, 'thrown later', ['error']],
  ['/rejects-thenable', 500, 'thenable', ['error']],
  ['/route', 200, 'went on', ['a', 'b', 'c']],
  ['/router', 200, 'left the router', ['a']],
])('%s', async (path, status, body, order) => {
  const res = await fetch(`${base}${path}`);
  expect(res.status).toBe(status);
  expect(await res.text()).toBe(body);
  expect(ran).toEqual(order);
});

test('an error handler is refused when the sequence is made', () => {
  const onError: ErrorRequestHandler = (_err, _req, _res, next) => next();
  expect(() => inSequence(mark('a'), onError as unknown as RequestHandler)).toThrow(
    'inSequence takes no error handler',
  );
});
