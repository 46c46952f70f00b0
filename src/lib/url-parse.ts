import { parse } from 'node:url';

/**
 * Node 24's `url.parse` looks at its caller's stack (is it inside node_modules?) on every call until it has
 * printed its deprecation warning once, and from inside node_modules it never prints it: Apollo's Express
 * integration calls it on every request (~14 µs). One call from here, with deprecation warnings muted for
 * it, settles the check for the process; nothing of Roster's own uses `url.parse`.
 */
export function settleUrlParseCheck(): void {
  const muted = process.noDeprecation;
  process.noDeprecation = true;
  try {
    parse('/');
  } finally {
    process.noDeprecation = muted;
  }
}
