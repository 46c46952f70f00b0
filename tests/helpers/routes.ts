import type { Express } from 'express';

export interface Route {
  method: string;
  path: string;
}

/** What the router keeps of each mounted layer (router 2: the path as written, and a sub-router's own stack). */
interface Layer {
  rawPath?: string | RegExp | (string | RegExp)[];
  slash?: boolean;
  route?: { path: string | RegExp | (string | RegExp)[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

const paths = (path: Layer['rawPath']): string[] =>
  (Array.isArray(path) ? path : [path]).map((p) => (p === undefined ? '' : String(p)));

/** Every route the Express app serves, by method and full path, sub-routers walked at their mount paths. */
export function routesOf(app: Express): Route[] {
  const walk = (stack: Layer[], prefix: string): Route[] =>
    stack.flatMap((layer) => {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]);
        return paths(layer.route.path).flatMap((path) =>
          methods.map((method) => ({ method: method.toUpperCase(), path: prefix + path })),
        );
      }
      const inner = layer.handle?.stack;
      if (!inner) return [];
      const mounts = layer.slash ? [''] : paths(layer.rawPath).map((p) => (p === '/' ? '' : p));
      return mounts.flatMap((mount) => walk(inner, prefix + mount));
    });
  return walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
}
