import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import { EXPLORER_CSS, EXPLORER_SCRIPT } from './client.js';

const { resolve } = createRequire(import.meta.url);
// react and react-dom export no umd/ subpath: their browser builds sit next to their main file.
const besideMain = (pkg: string, file: string) => join(dirname(resolve(pkg)), file);

// graphql-sse exports no umd/ subpath either, but its package.json.
const inPackage = (pkg: string, file: string) => join(dirname(resolve(`${pkg}/package.json`)), file);

/** GraphiQL 3, its React 18 and graphql-sse's client (for subscriptions): npm's browser builds, no CDN. */
const VENDOR_FILES: Record<string, string> = {
  'react.js': besideMain('react', 'umd/react.production.min.js'),
  'react-dom.js': besideMain('react-dom', 'umd/react-dom.production.min.js'),
  'graphiql.js': resolve('graphiql/graphiql.min.js'),
  'graphiql.css': resolve('graphiql/graphiql.min.css'),
  'graphql-sse.js': inPackage('graphql-sse', 'umd/graphql-sse.min.js'),
};
const OWN_FILES: Record<string, string> = { 'explorer.js': EXPLORER_SCRIPT, 'explorer.css': EXPLORER_CSS };

// One version for the set: a new build of any file is a new URL, so every answer may be cached for good.
const version = createHash('sha256');
for (const path of Object.values(VENDOR_FILES)) version.update(readFileSync(path));
for (const text of Object.values(OWN_FILES)) version.update(text);

export const ASSETS_PATH = `/explorer/${version.digest('hex').slice(0, 12)}`;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The explorer's scripts and stylesheets: mounted at ASSETS_PATH of the /graphql router. */
export function explorerAssets(): Router {
  const router = Router();
  router.get('/:file', (req, res, next) => {
    const { file } = req.params;
    const own = Object.hasOwn(OWN_FILES, file) ? OWN_FILES[file] : undefined;
    const vendor = Object.hasOwn(VENDOR_FILES, file) ? VENDOR_FILES[file] : undefined;
    if (own !== undefined) {
      res
        .type(file.endsWith('.css') ? 'css' : 'js')
        .set('Cache-Control', IMMUTABLE)
        .send(own);
    } else if (vendor !== undefined) {
      res.sendFile(vendor, { headers: { 'Cache-Control': IMMUTABLE } }, (err) => err && next(err));
    } else {
      next();
    }
  });
  return router;
}
