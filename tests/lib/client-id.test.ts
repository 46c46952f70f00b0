import { newClientId } from '../../src/lib/ids.js';

// A client id is passed on command lines (`roster app delete --client ID`): one beginning with `-` was read as
// an option (one in 64 did).
test('client ids never begin with a dash, and are 22 base64url characters', () => {
  const ids = Array.from({ length: 5000 }, newClientId);
  expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
  expect(ids.every((id) => /^[A-Za-z0-9_-]{22}$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
});
