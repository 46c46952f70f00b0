import type { ViewerAppResolvers, ViewerResolvers, ViewerUserResolvers } from '../../generated/graphql.js';

export const Viewer: ViewerResolvers = {
  tokenKind: (viewer) => (viewer.kind === 'user' ? 'USER' : 'APP'),
  user: (viewer, _args, { loaders }) => (viewer.kind === 'user' ? loaders.userById.load(viewer.userId) : null),
  async app(viewer, _args, { loaders }) {
    const app = await loaders.appById.load(viewer.appId);
    if (!app) throw new Error(`app ${viewer.appId} of a resolved token is gone`);
    return app;
  },
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
