/**
 * What `oidc_payloads` keeps of an oidc-provider model: nothing that lets its reader present a cookie,
 * a token or a code, or resume a sign-in. Those values are the row's own id (stored only as its hash)
 * and the session cookie an Interaction copies; they are left out here, and the id is put back on load
 * from the id the provider looked the row up by.
 */

export type Payload = Record<string, unknown>;

/** Models whose id is a bearer value or a cookie's value. */
const SECRET_ID_MODELS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'PushedAuthorizationRequest',
  // The session cookie's value.
  'Session',
  // The interaction and resume cookies' value, also the last segment of the Interaction's `returnTo`.
  'Interaction',
]);

/** Stands for the Interaction's id at the end of its stored `returnTo` (the resume URL). */
const ID_SEGMENT = '/:uid';

const isObject = (value: unknown): value is Payload => typeof value === 'object' && value !== null;

/** The payload as stored: without the secret id, nor the session cookie an Interaction carries. */
export function sealPayload(model: string, id: string, payload: Payload): Payload {
  if (!SECRET_ID_MODELS.has(model)) return payload;
  const sealed: Payload = { ...payload };
  delete sealed.jti;
  if (model === 'Interaction') {
    const { returnTo, session } = sealed;
    if (typeof returnTo === 'string' && returnTo.endsWith(`/${id}`)) {
      sealed.returnTo = returnTo.slice(0, -id.length - 1) + ID_SEGMENT;
    }
    // The provider never reads it back; it is the session's cookie value.
    if (isObject(session)) {
      const { cookie: _cookie, ...rest } = session;
      sealed.session = rest;
    }
  }
  return sealed;
}

/** The payload as the provider wants it, `id` being what it looked the row up by (unknown for other keys). */
export function openPayload(model: string, id: string | undefined, payload: Payload): Payload {
  if (id === undefined || !SECRET_ID_MODELS.has(model)) return payload;
  const opened: Payload = { ...payload, jti: id };
  const { returnTo } = opened;
  if (model === 'Interaction' && typeof returnTo === 'string' && returnTo.endsWith(ID_SEGMENT)) {
    opened.returnTo = `${returnTo.slice(0, -ID_SEGMENT.length)}/${id}`;
  }
  return opened;
}
