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

  function graphiql() {
    if (!start('graphiql')) return;
    var assets = config.graphiql;
    load('link', { rel: 'stylesheet', href: assets.css })
      .then(function () { return load('script', { src: assets.react }); })
      .then(function () { return load('script', { src: assets.reactDom }); })
      .then(function () { return load('script', { src: assets.graphiql }); })
      .then(function () {
        var fetcher = GraphiQL.createFetcher({ url: endpoint });
        ReactDOM.createRoot(target).render(React.createElement(GraphiQL, {
          fetcher: fetcher,
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
