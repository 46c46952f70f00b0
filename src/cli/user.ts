import type { Command } from 'commander';
import type { UserRow } from '../stores/types.js';
import { CliError, type Run } from './runtime.js';

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

export function registerUser(program: Command, run: Run): void {
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
      run(opts, async ({ services }) => {
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
        return { json: userJson(created), human: `created user ${created.uid} (${created.email ?? 'no email'})` };
      }),
    );
  user
    .command('set-state')
    .description("set a user's activation state; inactive users' tokens and apps stop until reactivated")
    .requiredOption('--user <user>', 'the user (email or uid)')
    .requiredOption('--state <state>', 'active, pending or deactivated')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; user: string; state: string }) =>
      run(opts, async ({ services }) => {
        const updated = await services.users.setState(opts.user, opts.state);
        return { json: userJson(updated), human: `user ${updated.uid} is ${updated.activationState}` };
      }),
    );
}
