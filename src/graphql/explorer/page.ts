import { escapeHtml } from '../../http/pages/html.js';
import type { Request, Response } from 'express';
import type { Config } from '../../config.js';
import { ASSETS_PATH } from './assets.js';
import { PATHS } from '../../http/paths.js';
import { EXPLORER_CLIENT_ID, EXPLORER_SCOPE } from '../../services/explorer-client.js';

const SANDBOX_SCRIPT_ORIGIN = 'https://embeddable-sandbox.cdn.apollographql.com';
const SANDBOX_FRAME_ORIGIN = 'https://sandbox.embed.apollographql.com';

/** Exactly what the page loads: its own files, Sandbox's script and frame, and GraphiQL's inlined fonts. */
const POLICY = [
  "default-src 'none'",
  `script-src 'self' ${SANDBOX_SCRIPT_ORIGIN}`,
  "style-src 'self'",
  "img-src 'self' data:",
  'font-src data:',
  "connect-src 'self'",
  `frame-src ${SANDBOX_FRAME_ORIGIN}`,
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const CANONICAL_QUERY = `# Sign in above (the explorer fills the Authorization header), or set it under Headers, then run.
{
  event(slug: "roster-launch") {
    name
    registrations(first: 5) {
      totalCount
      nodes {
        registrant {
          name
          email
        }
      }
    }
  }
}
`;

/** JSON inside <script>: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The /graphql page for browsers: Apollo Sandbox if its CDN answers within a few seconds, else local GraphiQL.
 * Also the explorer's redirect URI (PATHS.explorerCallback), where its script finishes a sign-in.
 */
export function explorerPage(config: Config) {
  const headers = { Authorization: 'Bearer ' };
  return (req: Request, res: Response) => {
    const assets = `${req.baseUrl}${ASSETS_PATH}`;
    const settings = {
      sandbox: {
        script: `${SANDBOX_SCRIPT_ORIGIN}/v2/embeddable-sandbox.umd.production.min.js`,
        timeoutMs: 5000,
        // The options Apollo's own landing page passes, with our header to fill and telemetry as configured.
        options: {
          target: '#explorer',
          initialState: { headers, includeCookies: false },
          hideCookieToggle: false,
          endpointIsEditable: false,
          runTelemetry: config.explorerTelemetry,
          allowDynamicStyles: false,
        },
      },
      graphiql: {
        css: `${assets}/graphiql.css`,
        react: `${assets}/react.js`,
        reactDom: `${assets}/react-dom.js`,
        graphiql: `${assets}/graphiql.js`,
        graphqlSse: `${assets}/graphql-sse.js`,
        stream: `${req.baseUrl}/stream`,
        // The public SDL: the docs work before a token is set, and no introspection fails for want of one.
        schema: `${req.baseUrl}/schema.graphql`,
      },
      headers,
      defaultQuery: CANONICAL_QUERY,
      endpoint: req.baseUrl,
      // Code + PKCE as the built-in public client; its redirect URI is this same page, on BASE_URL.
      signIn: {
        clientId: EXPLORER_CLIENT_ID,
        scope: EXPLORER_SCOPE,
        redirectUri: `${config.baseUrl}${PATHS.explorerCallback}`,
        home: `${config.baseUrl}${PATHS.graphql}`,
        discovery: `${config.baseUrl}/.well-known/openid-configuration`,
      },
    };
    res
      .set({
        'Content-Security-Policy': POLICY,
        'X-Frame-Options': 'DENY',
        'X-Content-Type-Options': 'nosniff',
        // Sandbox is told the endpoint anyway; nothing in this URL is secret.
        'Referrer-Policy': 'strict-origin',
        'Cache-Control': 'no-cache',
        Vary: 'Accept',
      })
      .type('html').send(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(config.serviceName)} GraphQL explorer</title>
    <link rel="stylesheet" href="${assets}/explorer.css" />
    <script type="application/json" id="explorer-config">${scriptJson(settings)}</script>
    <script src="${assets}/explorer.js" defer></script>
  </head>
  <body>
    <header class="explorer-account" id="explorer-account">
      <span id="explorer-status" role="status">Sign in to run queries as yourself.</span>
      <button type="button" id="explorer-sign-in">Sign in</button>
      <button type="button" id="explorer-sign-out" hidden>Sign out</button>
      <a id="explorer-end-session" hidden>Sign out of ${escapeHtml(config.serviceName)} too</a>
    </header>
    <div id="explorer"><p class="explorer-loading">Loading the explorer…</p></div>
  </body>
</html>
`);
  };
}
