import type { Command } from 'commander';
import type { UserDetail } from '../services/user-service.js';
import type { UserRow } from '../stores/types.js';
import { CliError, readFirstLine, type CliIo, type Run } from './runtime.js';
import { fields, isoOrNull, nextCursor, pageText, table } from './table.js';

export const userJson = (u: UserRow) => ({
  uid: u.uid,
  email: u.email,
  email_verified: u.emailVerified,
  name: u.name,
  picture: u.picture,
  zoneinfo: u.zoneinfo,
  activation_state: u.activationState,
  updated_at: Math.floor(u.updatedAt / 1000),
});

const detailJson = (d: UserDetail) => ({
  ...userJson(d.user),
  created_at: Math.floor(d.user.createdAt / 1000),
  has_password: d.user.passwordHash !== null,
  apps: d.apps,
  organizer_of: d.organizerOf,
  registrations: d.registrations,
});

interface UserUpdateOptions {
  json?: boolean;
  user: string;
  email?: string | false;
  name?: string;
  picture?: string | false;
  zoneinfo?: string | false;
  emailVerified?: boolean;
}

/** An option that may be cleared with its --no- form: false is null, absent is undefined. */
const clearable = (value: string | false | undefined) => (value === false ? null : value);

interface UserCreateOptions {
  json?: boolean;
  email?: string | false;
  name: string;
  password?: string;
  picture?: string;
  zoneinfo?: string;
  emailVerified?: boolean;
  activationState?: string;
}

export function registerUser(program: Command, run: Run, io: CliIo): void {
  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user (a registrant, organizer or app owner)')
    .option('--email <email>', 'email address')
    .option('--no-email', 'create a registrant without an address')
    .requiredOption('--name <name>', 'full name')
    .option('--password <password>', 'password for signing in (stored as a scrypt hash)')
    .option('--picture <url>', 'profile picture URL')
    .option('--zoneinfo <tz>', 'IANA time zone, e.g. Europe/Paris')
    .option('--email-verified', 'mark the email address as verified')
    .option('--activation-state <state>', 'active, pending or deactivated', 'active')
    .option('--json', 'print one JSON object')
    .action((opts: UserCreateOptions) =>
      run(
        opts,
        async ({ services }) => {
          if (opts.email === undefined)
            throw new CliError('--email is required (or --no-email for a registrant without one)');
          const created = await services.users.create({
            email: opts.email === false ? null : opts.email,
            name: opts.name,
            password: opts.password,
            picture: opts.picture,
            zoneinfo: opts.zoneinfo,
            emailVerified: opts.emailVerified,
            activationState: opts.activationState,
          });
          const audit = { subject: created.uid, userId: created.id };
          return {
            json: userJson(created),
            audit,
            human: `created user ${created.uid} (${created.email ?? 'no email'})`,
          };
        },
        { write: { action: 'user.created', subject: opts.email || null } },
      ),
    );
  user
    .command('set-state')
    .description("set a user's activation state; inactive users' tokens and apps stop until reactivated")
    .requiredOption('--user <user>', 'the user (email or uid)')
    .requiredOption('--state <state>', 'active, pending or deactivated')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; state: string }) =>
      run(
        opts,
        async ({ services }) => {
          const updated = await services.users.setState(opts.user, opts.state);
          const audit = { subject: `${updated.uid} ${updated.activationState}`, userId: updated.id };
          return { json: userJson(updated), audit, human: `user ${updated.uid} is ${updated.activationState}` };
        },
        { write: { action: 'user.state_set', subject: opts.user } },
      ),
    );
  user
    .command('list')
    .description('list users in creation order, a page at a time')
    .option('--state <state>', 'only users in this activation state')
    .option('--limit <n>', 'users per page (1-1000)', '50')
    .option('--after <cursor>', "the page after this cursor (the previous page's 'next')")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; state?: string; limit: string; after?: string }) =>
      run(opts, async ({ services }) => {
        const page = await services.users.list(opts, opts.state);
        const next = nextCursor(page);
        const rows = page.rows.map((u) => [u.uid, u.email, u.name, u.activationState]);
        const human = pageText(table(['UID', 'EMAIL', 'NAME', 'STATE'], rows), rows.length, next);
        return { json: { users: page.rows.map(userJson), next }, human };
      }),
    );
  user
    .command('show')
    .description('show a user with their apps, the events they organize and their registration count')
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string }) =>
      run(opts, async ({ services }) => {
        const json = detailJson(await services.users.show(opts.user));
        return {
          json,
          human: fields({
            ...json,
            updated_at: isoOrNull(json.updated_at * 1000),
            created_at: isoOrNull(json.created_at * 1000),
          }),
        };
      }),
    );
  user
    .command('update')
    .description("change a user's profile; a new email address is unverified unless --email-verified")
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--email <email>', 'new email address')
    .option('--no-email', 'remove the email address')
    .option('--name <name>', 'full name')
    .option('--picture <url>', 'profile picture URL')
    .option('--no-picture', 'remove the picture')
    .option('--zoneinfo <tz>', 'IANA time zone')
    .option('--no-zoneinfo', 'remove the time zone')
    .option('--email-verified', 'mark the email address as verified')
    .option('--no-email-verified', 'mark the email address as unverified')
    .option('--json', 'print one JSON object')
    .action((opts: UserUpdateOptions) =>
      run(
        opts,
        async ({ services }) => {
          const updated = await services.users.update(opts.user, {
            email: clearable(opts.email),
            name: opts.name,
            picture: clearable(opts.picture),
            zoneinfo: clearable(opts.zoneinfo),
            emailVerified: opts.emailVerified,
          });
          return {
            json: userJson(updated),
            audit: { subject: updated.uid, userId: updated.id },
            human: `updated user ${updated.uid}`,
          };
        },
        { write: { action: 'user.updated', subject: opts.user } },
      ),
    );
  user
    .command('set-password')
    .description("set a user's password; their sessions and refresh tokens end")
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--password <password>', 'the new password (visible to other local users: prefer --password-stdin)')
    .option('--password-stdin', 'read the new password from the first line of stdin')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; password?: string; passwordStdin?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          if ((opts.password === undefined) === !opts.passwordStdin) {
            throw new CliError('give the password with --password or --password-stdin (one of them)');
          }
          const password = opts.password ?? (await readFirstLine(io.stdin));
          const { user: u, sessionsEnded } = await services.users.resetPassword(opts.user, password);
          const json = { uid: u.uid, password_set: true, sessions_ended: sessionsEnded };
          const audit = { subject: u.uid, userId: u.id };
          return {
            json,
            audit,
            human: `password set for ${u.uid}; ${sessionsEnded} session(s) and refresh token(s) ended`,
          };
        },
        { write: { action: 'user.password_set', subject: opts.user } },
      ),
    );
  user
    .command('reset-link')
    .description('print a one-time password reset link (30 minutes, under BASE_URL) to pass on to the user')
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string }) =>
      run(
        opts,
        async ({ services }) => {
          const subject = await services.users.getByKey(opts.user);
          const link = await services.resets.issueLink(subject);
          const expiresAt = new Date(link.expiresAt).toISOString();
          return {
            audit: { subject: subject.uid, userId: subject.id },
            json: { url: link.url, expires_at: expiresAt },
            human: `${link.url}\n(works once, until ${expiresAt})`,
          };
        },
        { write: { action: 'password_reset.link_issued', subject: opts.user } },
      ),
    );
  user
    .command('delete')
    .description('delete a user with their apps, grants, tokens, sessions, registrations and organizer links')
    .requiredOption('--user <user>', 'the user (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string }) =>
      run(
        opts,
        async ({ services }) => {
          const d = await services.users.delete(opts.user);
          const json = {
            deleted: d.user.uid,
            apps: d.apps,
            registrations: d.registrations,
            organizer_of: d.organizerOf,
          };
          const human = `deleted user ${d.user.uid} with ${d.apps.length} app(s) and ${d.registrations} registration(s)`;
          return { json, audit: { subject: d.user.uid, userId: d.user.id }, human };
        },
        { write: { action: 'user.deleted', subject: opts.user } },
      ),
    );
}
