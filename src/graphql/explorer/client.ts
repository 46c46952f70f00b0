/**
 * The explorer page's own script (served from Roster, so the page's CSP needs no inline script): Apollo
 * Sandbox when its script loads from Apollo's CDN, else GraphiQL from Roster's own copies of its files.
 */
export const EXPLORER_SCRIPT = `'use strict';
(function () {
  var config = JSON.parse(document.getElementById('explorer-config').textContent);
  var target = document.getElementById('explorer');
  var endpoint = location.origin + location.pathname;
  var started = false;

  function load(tag, attributes) {
    return new Promise(function (resolve, reject) {
      var element = document.createElement(tag);
      Object.assign(element, attributes);
      element.onload = resolve;
      element.onerror = function () { reject(new Error('could not load ' + (attributes.src || attributes.href))); };
      document.head.appendChild(element);
    });
  }

  function start(explorer) {
    if (started) return false;
    started = true;
    target.textContent = '';
    document.body.dataset.explorer = explorer;
    return true;
  }

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
        // No silent retry: a reconnect without Last-Event-ID could skip changes, so the pane says it ended.
        var client = graphqlSse.createClient({ url: url, headers: headers || {}, retryAttempts: 0 });
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
        return { unsubscribe: function () { dispose(); client.dispose(); } };
      },
    };
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
          return isSubscription(params) ? subscribe(stream, params, options && options.headers) : http(params, options);
        };
        ReactDOM.createRoot(target).render(React.createElement(GraphiQL, {
          fetcher: fetcher,
          schema: schema,
          defaultQuery: config.defaultQuery,
          defaultHeaders: JSON.stringify(config.headers, null, 2),
          defaultEditorToolsVisibility: 'headers',
          shouldPersistHeaders: false,
        }));
      })
      .catch(function (err) { target.textContent = 'The explorer could not start: ' + err.message; });
  }

  function sandbox() {
    var timer = setTimeout(graphiql, config.sandbox.timeoutMs);
    load('script', { src: config.sandbox.script }).then(function () {
      clearTimeout(timer);
      if (start('sandbox')) new window.EmbeddedSandbox(Object.assign({}, config.sandbox.options, { initialEndpoint: endpoint }));
    }, function () {
      clearTimeout(timer);
      graphiql();
    });
  }

  // ?explorer=graphiql skips Sandbox: the local editor on demand, online or not.
  if (new URLSearchParams(location.search).get('explorer') === 'graphiql') graphiql();
  else sandbox();
})();
`;

/** Both explorers fill the window. */
export const EXPLORER_CSS = `html, body, #explorer { height: 100%; margin: 0; }
#explorer iframe { width: 100%; height: 100%; border: none; background: white; }
.explorer-loading { font-family: system-ui, sans-serif; padding: 1em; }
`;
