import type { ViewerAppResolvers, ViewerResolvers, ViewerUserResolvers } from '../../generated/graphql.js';

export const Viewer: ViewerResolvers = {
  tokenKind: (viewer) => (viewer.kind === 'user' ? 'USER' : 'APP'),
  user: (viewer, _args, { loaders }) => (viewer.kind === 'user' ? loaders.userById.load(viewer.userId) : null),
  app: (viewer) => ({ clientId: viewer.clientId, name: viewer.appName }),
  scopes: (viewer) => viewer.scopes,
};

export const ViewerUser: ViewerUserResolvers = {
  id: (user) => user.uid,
  name: (user) => user.name,
};

export const ViewerApp: ViewerAppResolvers = {
  clientId: (app) => app.clientId,
  name: (app) => app.name,
};
