import type {
  ViewerAppResolvers,
  ViewerPersonalTokenResolvers,
  ViewerResolvers,
  ViewerUserResolvers,
} from '../../generated/graphql.js';
import type { Viewer as ViewerModel, ViewerAppModel } from '../../services/viewer.js';

/** The token's app; null for a personal access token. */
const clientOf = (viewer: ViewerModel): ViewerAppModel | null =>
  viewer.clientId === null || viewer.appName === null ? null : { clientId: viewer.clientId, name: viewer.appName };

export const Viewer: ViewerResolvers = {
  tokenKind: (viewer) => (viewer.kind === 'user' ? 'USER' : 'APP'),
  user: (viewer, _args, { loaders }) => (viewer.kind === 'user' ? loaders.userById.load(viewer.userId) : null),
  // The deprecated non-null field: a personal token's stand-in (its name) where there is no app.
  app: (viewer) =>
    clientOf(viewer) ?? {
      clientId: PERSONAL_CLIENT_ID,
      name: viewer.kind === 'user' ? (viewer.personalToken?.name ?? '') : '',
    },
  client: (viewer) => clientOf(viewer),
  personalToken: (viewer) => (viewer.kind === 'user' ? (viewer.personalToken ?? null) : null),
  scopes: (viewer) => viewer.scopes,
};

/** `viewer.app.clientId` for a personal access token: no client id looks like it (they are 22 random characters). */
export const PERSONAL_CLIENT_ID = 'personal';

export const ViewerPersonalToken: ViewerPersonalTokenResolvers = {
  name: (token) => token.name,
  expiresAt: (token) => new Date(token.expiresAt),
};

export const ViewerUser: ViewerUserResolvers = {
  id: (user) => user.uid,
  name: (user) => user.name,
};

export const ViewerApp: ViewerAppResolvers = {
  clientId: (app) => app.clientId,
  name: (app) => app.name,
};
