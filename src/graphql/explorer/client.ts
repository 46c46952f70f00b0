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

  function base64url(bytes) {
    var text = '';
    new Uint8Array(bytes).forEach(function (b) { text += String.fromCharCode(b); });
    return btoa(text).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }

  function randomString() {
    return base64url(crypto.getRandomValues(new Uint8Array(32)));
  }

  function isBlankBearer(value) {
    return value === undefined || value === null || /^\\s*(bearer)?\\s*$/i.test(String(value));
  }

  /**
   * Signs in as the built-in public client: code + PKCE, the code back in the URL's fragment (never sent to a
   * server), tokens in this page's memory only. The round trip's secrets wait in sessionStorage, one navigation long.
   */
  function createAccount(settings) {
    var ROUND_TRIP = 'roster-explorer:sign-in';
    var status = document.getElementById('explorer-status');
    var signInButton = document.getElementById('explorer-sign-in');
    var signOutButton = document.getElementById('explorer-sign-out');
    var endSession = document.getElementById('explorer-end-session');
    var redirect = new URL(settings.redirectUri);
    var home = new URL(settings.home);
    var tokens = null;
    var held = [];
    var listeners = [];
    var metadata = null;
    var timer = null;
    var refreshing = null;

    function discover() {
      metadata = metadata || fetch(settings.discovery, { credentials: 'omit' }).then(function (res) {
        if (!res.ok) throw new Error('discovery answered ' + res.status);
        return res.json();
      });
      metadata.catch(function () { metadata = null; });
      return metadata;
    }

    function show(text, signedIn) {
      status.textContent = text;
      signInButton.hidden = signedIn;
      signOutButton.hidden = !signedIn;
      document.body.dataset.signedIn = signedIn ? 'true' : 'false';
    }

    function fail(err) {
      show('Not signed in: ' + (err && err.message ? err.message : err), false);
    }

    function header() {
      return tokens ? 'Bearer ' + tokens.access : undefined;
    }

    function changed(before) {
      var after = header();
      listeners.forEach(function (listener) { listener(before, after); });
    }

    function post(url, params) {
      return fetch(url, {
        method: 'POST',
        credentials: 'omit',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams(Object.assign({ client_id: settings.clientId }, params)),
      });
    }

    function tokenRequest(params) {
      return discover().then(function (meta) { return post(meta.token_endpoint, params); }).then(function (res) {
        return res.json().then(function (body) {
          if (!res.ok || !body.access_token) throw new Error(body.error_description || body.error || 'token endpoint answered ' + res.status);
          return body;
        });
      });
    }

    // Refreshed a minute (or a fifth of its life) before it ends; a timer longer than setTimeout's range waits in steps.
    function schedule() {
      clearTimeout(timer);
      if (!tokens || !tokens.refresh) return;
      var margin = Math.min(60000, (tokens.expiresAt - tokens.issuedAt) / 5);
      var wait = Math.max(1000, tokens.expiresAt - margin - Date.now());
      timer = setTimeout(function () { if (Date.now() >= tokens.expiresAt - margin) refresh(); else schedule(); }, Math.min(wait, 2147483647));
    }

    function accept(body) {
      var before = header();
      var now = Date.now();
      tokens = {
        access: body.access_token,
        refresh: body.refresh_token || (tokens && tokens.refresh),
        issuedAt: now,
        expiresAt: now + (Number(body.expires_in) || 3600) * 1000,
        name: tokens ? tokens.name : '',
      };
      held.push(tokens.access);
      schedule();
      changed(before);
    }

    function forget() {
      var before = header();
      clearTimeout(timer);
      tokens = null;
      changed(before);
      held = [];
    }

    function refresh() {
      if (!tokens || !tokens.refresh) return Promise.resolve();
      refreshing = refreshing || tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh })
        .then(accept, function (err) {
          forget();
          fail(new Error('your sign-in ended (' + err.message + '). Sign in again.'));
        })
        .then(function () { refreshing = null; });
      return refreshing;
    }

    function whoAmI() {
      return discover().then(function (meta) {
        return fetch(meta.userinfo_endpoint, { credentials: 'omit', headers: { Authorization: header() } });
      }).then(function (res) { return res.ok ? res.json() : {}; }).then(function (claims) {
        if (!tokens) return;
        tokens.name = claims.name || claims.email || 'your account';
        show('Signed in as ' + tokens.name, true);
      });
    }

    function idTokenClaims(idToken) {
      var part = String(idToken).split('.')[1] || '';
      var json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
      return JSON.parse(decodeURIComponent(Array.prototype.map.call(json, function (c) {
        return '%' + ('0' + c.charCodeAt(0).toString(16)).slice(-2);
      }).join('')));
    }

    /** At the redirect URI: the code leaves the address bar first, then is traded for tokens if the state is ours. */
    function complete() {
      var answer = new URLSearchParams(location.hash.slice(1));
      var round = null;
      try { round = JSON.parse(sessionStorage.getItem(ROUND_TRIP) || 'null'); } catch (err) { round = null; }
      sessionStorage.removeItem(ROUND_TRIP);
      var search = round && /^(\\?explorer=graphiql)?$/.test(round.search) ? round.search : '';
      history.replaceState(null, '', home.pathname + search);
      if (!round || !answer.get('state') || answer.get('state') !== round.state) {
        return Promise.reject(new Error('that sign-in was not started from this page. Sign in again.'));
      }
      if (answer.get('error')) return Promise.reject(new Error(answer.get('error_description') || answer.get('error')));
      return discover().then(function (meta) {
        // RFC 9207: the answer names the issuer that sent it.
        if (answer.get('iss') !== meta.issuer) throw new Error('the answer came from another issuer');
        return tokenRequest({
          grant_type: 'authorization_code',
          code: answer.get('code') || '',
          redirect_uri: settings.redirectUri,
          code_verifier: round.verifier,
        });
      }).then(function (body) {
        if (!body.id_token || idTokenClaims(body.id_token).nonce !== round.nonce) throw new Error('the ID token is not this sign-in’s');
        accept(body);
        return whoAmI();
      });
    }

    function signIn() {
      // The redirect URI is on BASE_URL: a round trip must start from there to find its secrets on return.
      if (location.origin !== redirect.origin) return location.assign(home.href);
      show('Signing in…', false);
      var round = { state: randomString(), nonce: randomString(), verifier: randomString(), search: location.search };
      var challenge = crypto.subtle.digest('SHA-256', new TextEncoder().encode(round.verifier));
      Promise.all([discover(), challenge]).then(function (found) {
        sessionStorage.setItem(ROUND_TRIP, JSON.stringify(round));
        var url = new URL(found[0].authorization_endpoint);
        url.search = new URLSearchParams({
          client_id: settings.clientId,
          response_type: 'code',
          response_mode: 'fragment',
          redirect_uri: settings.redirectUri,
          scope: settings.scope,
          state: round.state,
          nonce: round.nonce,
          code_challenge: base64url(found[1]),
          code_challenge_method: 'S256',
        }).toString();
        location.assign(url.href);
      }).catch(fail);
    }

    function revoke(meta, token, hint) {
      return post(meta.revocation_endpoint, { token: token, token_type_hint: hint });
    }

    function signOut() {
      var ended = tokens;
      forget();
      show('Signing out…', false);
      discover().then(function (meta) {
        // The refresh token last: revoking it ends the grant, and the access token with it.
        return revoke(meta, ended.access, 'access_token').then(function () {
          return ended.refresh && revoke(meta, ended.refresh, 'refresh_token');
        }).then(function (res) {
          if (res && !res.ok) throw new Error('revocation answered ' + res.status);
          var end = new URL(meta.end_session_endpoint);
          end.search = new URLSearchParams({ client_id: settings.clientId, post_logout_redirect_uri: home.href }).toString();
          endSession.href = end.href;
          endSession.hidden = false;
          show('Signed out of the explorer: its tokens are revoked.', false);
        });
      }).catch(fail);
    }

    signInButton.addEventListener('click', signIn);
    signOutButton.addEventListener('click', signOut);

    var ready = location.pathname === redirect.pathname ? complete().catch(fail) : Promise.resolve();

    return {
      /** Settled once a sign-in that brought the browser here is complete (or refused). */
      ready: ready,
      onChange: function (listener) { listeners.push(listener); },
      header: header,
      /** The headers to send: a blank Authorization, or one naming an older token of ours, gets the current token. */
      authorize: function (headers) {
        var wait = tokens && tokens.expiresAt - Date.now() < 30000 ? refresh() : Promise.resolve();
        return wait.then(function () {
          var out = Object.assign({}, headers || {});
          var current = header();
          if (!current) return out;
          var name = Object.keys(out).find(function (key) { return key.toLowerCase() === 'authorization'; });
          var value = name === undefined ? undefined : out[name];
          if (isBlankBearer(value) || held.indexOf(String(value).replace(/^\\s*bearer\\s+/i, '')) !== -1) {
            if (name !== undefined) delete out[name];
            out.Authorization = current;
          }
          return out;
        });
      },
    };
  }

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
