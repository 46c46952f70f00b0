import { parse } from 'node:url';

/**
 * Node 24's `url.parse` looks at its caller's stack (is it inside node_modules?) on every call until it has
 * printed its deprecation warning once, and from inside node_modules it never prints it: Apollo's Express
 * integration calls it on every request (~14 µs). One call from here, with deprecation warnings muted for
 * it, settles the check for the process; ESLint keeps `url.parse` out of the rest of Roster's code.
 */
export function settleUrlParseCheck(): void {
  // Node 22 walks no stack (it warns only under --pending-deprecation, which this would silence).
  if (Number(process.versions.node.split('.')[0]) < 24) return;
  // --no-deprecation makes the flag true and read-only: muted already.
  if (process.noDeprecation) {
    parse('/');
    return;
  }
  const muted = process.noDeprecation;
  process.noDeprecation = true;
  try {
    parse('/');
  } finally {
    if (muted === undefined) delete process.noDeprecation;
    else process.noDeprecation = muted;
  }
}
