import { createServer } from 'node:http';

/** The app's redirect URI, served on this machine: it answers the browser once, then stops listening. */
export interface CallbackListener {
  /** The full URL the browser came back to (with `code` and `state`, or `error`). */
  readonly callback: Promise<URL>;
  close(): Promise<void>;
}

/** Listens at the redirect URI's host and port (e.g. http://127.0.0.1:3000/callback) for the sign-in's return. */
export async function listenForCallback(redirectUri: string): Promise<CallbackListener> {
  const target = new URL(redirectUri);
  let arrived!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => (arrived = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    if (url.pathname !== target.pathname) {
      res.writeHead(404).end();
      return;
    }
    const failed = url.searchParams.get('error');
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
    res.end(failed ? `Sign-in did not finish: ${failed}. See the terminal.` : 'Signed in: back to the terminal.');
    arrived(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Only this machine: the hostname of the redirect URI (IPv6 literals without their brackets).
    server.listen(Number(target.port || 80), target.hostname.replace(/^\[|\]$/g, ''), resolve);
  });
  return {
    callback,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
