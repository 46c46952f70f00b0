import type { ClientAppRow } from '../stores/types.js';

/** Who a bearer token speaks for. Found once per request by the viewer lookup (services/bearer.ts). */
export type Viewer = UserViewer | AppViewer;

export interface UserViewer {
  kind: 'user';
  /** users.id of the signed-in user. */
  userId: number;
  uid: string;
  /**
   * The client app the token was issued to: 0 for the built-in explorer (services/explorer-client.ts), which has
   * no row; null for a personal access token (no app).
   */
  appId: number | null;
  clientId: string | null;
  /** Its name as the lookup read it: answers that show it are keyed by it. */
  appName: string | null;
  scopes: string[];
  /** The personal access token it is, if it is one. */
  personalToken?: ViewerPersonalToken;
}

export interface ViewerPersonalToken {
  id: number;
  name: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface AppViewer {
  kind: 'app';
  appId: number;
  clientId: string;
  appName: string;
  /** users.id of the app's owner. */
  ownerId: number;
  scopes: string[];
}

/** The app a token speaks through, as `viewer { app }` shows it. */
export interface ViewerAppModel {
  clientId: string;
  name: string;
}

/** An app's viewer: its app token, or its own client_credentials token, or a delivery of its webhooks. */
export const appViewer = (app: Pick<ClientAppRow, 'id' | 'clientId' | 'name' | 'ownerId'>): AppViewer => ({
  kind: 'app',
  appId: app.id,
  clientId: app.clientId,
  appName: app.name,
  ownerId: app.ownerId,
  scopes: [],
});
