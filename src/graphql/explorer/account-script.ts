/**
 * The explorer's sign-in control, a part of EXPLORER_SCRIPT (inside its function): createAccount() signs in as
 * the built-in public client and hands each request its Authorization header.
 */
export const ACCOUNT_SCRIPT = `  function base64url(bytes) {
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
`;
