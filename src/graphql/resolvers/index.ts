import { DateTimeResolver } from 'graphql-scalars';
import type { Resolvers } from '../../generated/graphql.js';
import { Change, ChangeEdge } from './Change.js';
import { ChangeConnection, ChangePageInfo } from './ChangeConnection.js';
import { Event } from './Event.js';
import { EventConnection, EventEdge } from './EventConnection.js';
import { Node } from './Node.js';
import { Query } from './Query.js';
import { RateLimit } from './RateLimit.js';
import { Subscription } from './Subscription.js';
import { Registration } from './Registration.js';
import { PageInfo, RegistrationConnection, RegistrationEdge } from './RegistrationConnection.js';
import { Viewer, ViewerApp, ViewerPersonalToken, ViewerUser } from './Viewer.js';

export const resolvers: Resolvers = {
  DateTime: DateTimeResolver,
  Query,
  Subscription,
  RateLimit,
  Viewer,
  ViewerUser,
  ViewerApp,
  ViewerPersonalToken,
  Node,
  Event,
  EventConnection,
  EventEdge,
  RegistrationConnection,
  RegistrationEdge,
  PageInfo,
  Registration,
  Change,
  ChangeEdge,
  ChangeConnection,
  ChangePageInfo,
};
