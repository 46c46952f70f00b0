import { GraphQLError } from 'graphql';
import { maskedResult } from '../../../src/graphql/stream/results.js';
import { ChangesExpiredError } from '../../../src/graphql/errors.js';
import { capturedLog } from '../../helpers/log-lines.js';

// What a stream sends of its errors: the ones with a code as they are, any other (a failed query) masked.

test('an error without a code is sent as INTERNAL_SERVER_ERROR with the request id, its detail only logged', () => {
  const { logger, lines } = capturedLog();
  const cause = new Error('select * from changes: connection refused');
  const error = new GraphQLError(cause.message, { path: ['changes'], originalError: cause });
  const result = maskedResult({ data: null, errors: [error] }, 'req-1', logger);
  expect(result.errors).toEqual([
    {
      message: 'Internal server error',
      path: ['changes'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-1' },
    },
  ]);
  expect(JSON.stringify(result)).not.toContain('connection refused');
  expect(JSON.stringify(lines)).toContain('connection refused');
  expect(JSON.stringify(lines)).toContain('req-1');
});

test('an error with a code keeps its message and code; a result without errors is unchanged', () => {
  const { logger, lines } = capturedLog();
  const result = maskedResult(
    { data: null, errors: [new ChangesExpiredError('too old', 'Last-Event-ID')] },
    'r',
    logger,
  );
  expect(result.errors).toEqual([
    { message: 'too old', extensions: { code: 'CHANGES_EXPIRED', argumentName: 'Last-Event-ID' } },
  ]);
  const ok = { data: { changes: { type: 'EVENT_CREATED' } } };
  expect(maskedResult(ok, 'r', logger)).toBe(ok);
  expect(lines).toEqual([]);
});
