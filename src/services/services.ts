import type { Stores } from '../stores/stores.js';
import { AppService, DEFAULT_MAX_APPS_PER_USER, type AppRules } from './app-service.js';
import { EventService } from './event-service.js';
import { GrantService } from './grant-service.js';
import { NdjsonExporter } from './import/ndjson-export.js';
import { NdjsonImporter } from './import/ndjson-import.js';
import { RegistrationService } from './registration-service.js';
import { UserService } from './user-service.js';

/** The domain's rules, one service per domain: what routers, the CLI and resolvers call. */
export interface Services {
  users: UserService;
  events: EventService;
  registrations: RegistrationService;
  apps: AppService;
  grants: GrantService;
  importer: NdjsonImporter;
  exporter: NdjsonExporter;
}

/**
 * The deployment's rules the services apply, from the config (`production`, `maxAppsPerUser`): where
 * services are built (the app, the CLI). Left out, they are development's and the defaults.
 */
export type ServiceRules = AppRules;

export function createServices(
  stores: Stores,
  rules: ServiceRules = { production: false, maxAppsPerUser: DEFAULT_MAX_APPS_PER_USER },
): Services {
  const users = new UserService(stores);
  const apps = new AppService(stores, rules);
  return {
    users,
    events: new EventService(stores, users),
    registrations: new RegistrationService(stores, users),
    apps,
    grants: new GrantService(stores, users, apps),
    importer: new NdjsonImporter(stores),
    exporter: new NdjsonExporter(stores),
  };
}
