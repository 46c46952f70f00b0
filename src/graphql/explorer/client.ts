import { ACCOUNT_SCRIPT } from './account-script.js';

/**
 * The explorer page's own script (served from Roster, so the page's CSP needs no inline script): Apollo
 * Sandbox when its script loads from Apollo's CDN, else GraphiQL from Roster's own copies of its files; and
 * the sign-in control, which fills the Authorization header of both.
 */
export const EXPLORER_SCRIPT = `'use strict';
(function () {
  var config = JSON.parse(document.getElementById('explorer-config').textContent);
  var target = document.getElementById('explorer');
  var endpoint = location.origin + config.endpoint;
  var started = false;
  var account = createAccount(config.signIn);

${ACCOUNT_SCRIPT}
  // Read from the query sent, with GraphiQL's own graphql-js: the document GraphiQL parsed lags typing by 100 ms.
  function isSubscription(params) {
    try {
      var graphql = GraphiQL.GraphQL;
      var operation = graphql.getOperationAST(graphql.parse(params.query), params.operationName || undefined);
      return Boolean(operation) && operation.operation === 'subscription';
    } catch (err) {
      return false; // not a document at all: /graphql answers what is wrong with it
    }
  }

  // An Observable GraphiQL streams into its result pane; one graphql-sse client per run, with that run's headers.
  function subscribe(url, params, headers) {
    return {
      subscribe: function (sink) {
        var stop = null;
        var stopped = false;
        account.authorize(headers).then(function (sent) {
          if (!stopped) stop = open(sent, sink);
        }, function (err) { sink.error(err); });
        return { unsubscribe: function () { stopped = true; if (stop) stop(); } };
      },
    };

    function open(sent, sink) {
        // No silent retry: a reconnect without Last-Event-ID could skip changes, so the pane says it ended.
        var client = graphqlSse.createClient({ url: url, headers: sent, retryAttempts: 0 });
        var dispose = client.subscribe(params, {
          next: function (result) { sink.next(result); },
          complete: function () { sink.complete(); },
          error: function (err) {
            // A refusal before the stream opened (401, 400, 429) has Roster's JSON errors: show them as /graphql would.
            if (!err || !err.response) return sink.error(err);
            err.response.json().then(function (body) {
              sink.next(body);
              sink.complete();
            }, function () { sink.error(err); });
          },
        });
        return function () { dispose(); client.dispose(); };
    }
  }

  // GraphiQL's history keeps each run's headers in localStorage: a bearer token there would outlive the session.
  var HISTORY_KEYS = /^graphiql:(queries|favorites)$/;
  function withoutTokens(value) {
    try {
      var stored = JSON.parse(value);
      Object.keys(stored).forEach(function (list) {
        (stored[list] || []).forEach(function (item) {
          if (typeof item.headers === 'string') item.headers = item.headers.replace(/(bearer\\s+)[^\\s"'\\\\]+/gi, '$1');
        });
      });
      return JSON.stringify(stored);
    } catch (err) {
      return value;
    }
  }
  var graphiqlStorage = {
    getItem: function (key) { return localStorage.getItem(key); },
    setItem: function (key, value) { localStorage.setItem(key, HISTORY_KEYS.test(key) ? withoutTokens(value) : value); },
    removeItem: function (key) { localStorage.removeItem(key); },
    get length() { return Object.keys(localStorage).filter(function (key) { return key.indexOf('graphiql:') === 0; }).length; },
    clear: function () {
      Object.keys(localStorage).forEach(function (key) { if (key.indexOf('graphiql:') === 0) localStorage.removeItem(key); });
    },
  };

  /** The headers editor's text with its Authorization moved from one header value to the next, if it held the first. */
  function retarget(text, before, after) {
    var headers;
    try { headers = JSON.parse(text || '{}'); } catch (err) { return text; }
    if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return text;
    var name = Object.keys(headers).find(function (key) { return key.toLowerCase() === 'authorization'; }) || 'Authorization';
    if (!isBlankBearer(headers[name]) && headers[name] !== before) return text; // the user's own token: theirs
    headers[name] = after || 'Bearer ';
    return JSON.stringify(headers, null, 2);
  }

  function graphiql() {
    if (!start('graphiql')) return;
    var assets = config.graphiql;
    load('link', { rel: 'stylesheet', href: assets.css })
      .then(function () { return load('script', { src: assets.react }); })
      .then(function () { return load('script', { src: assets.reactDom }); })
      .then(function () { return load('script', { src: assets.graphiql }); })
      .then(function () { return load('script', { src: assets.graphqlSse }); })
      .then(function () {
        // Without the SDL GraphiQL introspects, which needs a token: the docs then wait for one.
        return fetch(location.origin + assets.schema).then(function (res) {
          return res.ok ? res.text().then(function (sdl) { return GraphiQL.GraphQL.buildSchema(sdl); }) : undefined;
        }, function () { return undefined; });
      })
      .then(function (schema) {
        var http = GraphiQL.createFetcher({ url: endpoint });
        var stream = location.origin + assets.stream;
        var fetcher = function (params, options) {
          if (isSubscription(params)) return subscribe(stream, params, options && options.headers);
          return account.authorize(options && options.headers).then(function (headers) {
            return http(params, Object.assign({}, options, { headers: headers }));
          });
        };
        var root = ReactDOM.createRoot(target);
        var blank = JSON.stringify(config.headers, null, 2);
        var headers = retarget(blank, undefined, account.header());
        var render = function () {
          root.render(React.createElement(GraphiQL, {
            fetcher: fetcher,
            schema: schema,
            defaultQuery: config.defaultQuery,
            // Shown in the headers editor: the signed-in token, for every tab.
            headers: headers,
            defaultHeaders: retarget(blank, undefined, account.header()),
            onEditHeaders: function (text) { headers = text; },
            defaultEditorToolsVisibility: 'headers',
            shouldPersistHeaders: false,
            storage: graphiqlStorage,
          }));
        };
        account.onChange(function (before, after) {
          headers = retarget(headers, before, after);
          render();
        });
        render();
      })
      .catch(function (err) { target.textContent = 'The explorer could not start: ' + err.message; });
  }

  function sandbox() {
    var timer = setTimeout(graphiql, config.sandbox.timeoutMs);
    load('script', { src: config.sandbox.script }).then(function () {
      clearTimeout(timer);
      if (!start('sandbox')) return;
      new window.EmbeddedSandbox(Object.assign({}, config.sandbox.options, {
        initialEndpoint: endpoint,
        // Sandbox's initial and shared headers travel in its frame's URL: the token is added here, in this page, to
        // each request whose Authorization is left blank.
        handleRequest: function (url, options) {
          return account.authorize(options.headers).then(function (headers) {
            return fetch(url, Object.assign({}, options, { headers: headers, credentials: 'omit' }));
          });
        },
      }));
    }, function () {
      clearTimeout(timer);
      graphiql();
    });
  }

  // ?explorer=graphiql skips Sandbox: the local editor on demand, online or not. A sign-in completes first.
  account.ready.then(function () {
    if (new URLSearchParams(location.search).get('explorer') === 'graphiql') graphiql();
    else sandbox();
  });
})();
`;

/** The sign-in bar on top; either explorer fills the rest of the window. */
export const EXPLORER_CSS = `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; }
#explorer { flex: 1 1 auto; min-height: 0; }
#explorer iframe { width: 100%; height: 100%; border: none; background: white; }
.explorer-account { display: flex; align-items: center; gap: 0.75em; padding: 0.4em 1em; font: 14px system-ui, sans-serif; border-bottom: 1px solid #ddd; }
.explorer-account [hidden] { display: none; }
.explorer-account button { font: inherit; padding: 0.2em 0.8em; cursor: pointer; }
.explorer-loading { font-family: system-ui, sans-serif; padding: 1em; }
`;
