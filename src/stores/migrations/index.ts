import type { Knex } from 'knex';
import * as init from './20261122000000_init.js';
import * as rateLimits from './20261122010000_rate_limits.js';
import * as accounts from './20261122020000_accounts.js';
import * as authEpoch from './20261122030000_auth_epoch.js';
import * as sealedOidcPayloads from './20261122040000_sealed_oidc_payloads.js';
import * as passwordResets from './20261123000000_password_resets.js';
import * as dataEpoch from './20261123010000_data_epoch.js';
import * as appEditsKeepAnswers from './20261125000000_app_edits_keep_answers.js';
import * as eventLocation from './20261126000000_event_location.js';
import * as changeLog from './20261126010000_change_log.js';
import * as webhooks from './20261127000000_webhooks.js';
import * as changeNotify from './20261128000000_change_notify.js';
import * as auditLog from './20261129000000_audit_log.js';
import * as clientTokenEpoch from './20261130000000_client_token_epoch.js';
import * as personalTokens from './20261130010000_personal_tokens.js';
import * as registrationsKeepAnswers from './20261201000000_registrations_keep_answers.js';
import * as refuseTruncate from './20261202000000_refuse_truncate.js';
import * as guardChangeLogAndEpochs from './20261205000000_guard_change_log_and_epochs.js';
import * as functionsIgnoreTemporaryTables from './20261205010000_functions_ignore_temporary_tables.js';
import * as userWritesKeepAnswers from './20261206000000_user_writes_keep_answers.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Listed in code, not read from a folder, so the same list runs from src/ (tests) and dist/.
const migrations: Record<string, Migration> = {
  '20261122000000_init': init,
  '20261122010000_rate_limits': rateLimits,
  '20261122020000_accounts': accounts,
  '20261122030000_auth_epoch': authEpoch,
  '20261122040000_sealed_oidc_payloads': sealedOidcPayloads,
  '20261123000000_password_resets': passwordResets,
  '20261123010000_data_epoch': dataEpoch,
  '20261125000000_app_edits_keep_answers': appEditsKeepAnswers,
  '20261126000000_event_location': eventLocation,
  '20261126010000_change_log': changeLog,
  '20261127000000_webhooks': webhooks,
  '20261128000000_change_notify': changeNotify,
  '20261129000000_audit_log': auditLog,
  '20261130000000_client_token_epoch': clientTokenEpoch,
  '20261130010000_personal_tokens': personalTokens,
  '20261201000000_registrations_keep_answers': registrationsKeepAnswers,
  '20261202000000_refuse_truncate': refuseTruncate,
  '20261205000000_guard_change_log_and_epochs': guardChangeLogAndEpochs,
  '20261205010000_functions_ignore_temporary_tables': functionsIgnoreTemporaryTables,
  '20261206000000_user_writes_keep_answers': userWritesKeepAnswers,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
