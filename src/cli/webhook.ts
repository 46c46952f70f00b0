import type { Command } from 'commander';
import type { WebhookView } from '../services/webhook-service.js';
import type { AttemptRow, DeliveryRow } from '../stores/webhook-store.js';
import { CliError, collect, type Run } from './runtime.js';
import { fields, isoOrNull, table } from './table.js';

const deliveryJson = (d: DeliveryRow) => ({
  id: d.id,
  message_id: d.messageId,
  kind: d.kind,
  state: d.state,
  attempts: d.attempts,
  next_attempt_at: d.state === 'pending' ? isoOrNull(d.nextAttemptAt) : null,
  last_status: d.lastStatus,
  last_error: d.lastError,
  created_at: isoOrNull(d.createdAt),
  finished_at: isoOrNull(d.finishedAt),
});

const webhookJson = (w: WebhookView) => ({
  id: w.id,
  client_id: w.clientId,
  url: w.url,
  types: w.types,
  event: w.eventSlug,
  enabled: w.enabled,
  disabled_reason: w.disabledReason,
  failing_since: isoOrNull(w.failingSince),
  created_at: isoOrNull(w.createdAt),
  last_delivery: w.lastDelivery && deliveryJson(w.lastDelivery),
});

const attemptJson = (a: AttemptRow) => ({
  delivery_id: a.deliveryId,
  message_id: a.messageId,
  at: isoOrNull(a.at),
  status: a.status,
  duration_ms: a.durationMs,
  error: a.error,
});

/** A webhook or delivery id as typed: a positive whole number, or exit 2 naming the argument. */
function id(raw: string, what: string): number {
  const n = Number(raw);
  if (!/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
    throw new CliError(`${what} must be a positive whole number, got ${JSON.stringify(raw.slice(0, 40))}`, 2);
  }
  return n;
}

const lastText = (d: DeliveryRow | null) =>
  d === null
    ? null
    : `${d.state}${d.lastStatus === null ? '' : ` ${d.lastStatus}`}${d.lastError ? `: ${d.lastError}` : ''}`;

export function registerWebhook(program: Command, run: Run): void {
  const webhook = program.command('webhook').description("manage apps' webhooks and their deliveries");
  webhook
    .command('create')
    .description('add a webhook to an app; its signing secret is shown once')
    .requiredOption('--client <id>', "the app's client id")
    .requiredOption('--url <url>', 'where deliveries are POSTed (https in production)')
    .option('--type <type>', 'only this change type (registration.created, ...); repeat for several', collect, [])
    .option('--event <slug>', "only this event's changes")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client: string; url: string; type: string[]; event?: string }) =>
      run(
        opts,
        async ({ services }) => {
          const app = await services.apps.getByClientId(opts.client);
          const made = await services.webhooks.create({
            appId: app.id,
            url: opts.url,
            types: opts.type,
            event: opts.event,
          });
          const json = { ...webhookJson(made.webhook), secret: made.secret };
          const audit = { subject: `webhook ${made.webhook.id}`, userId: app.ownerId };
          return { json, audit, human: `created webhook ${made.webhook.id}\nsecret (shown once): ${made.secret}` };
        },
        { write: { action: 'webhook.created', clientId: opts.client } },
      ),
    );
  webhook
    .command('list')
    .description('list webhooks with their last delivery')
    .option('--client <id>', "only this app's webhooks")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; client?: string }) =>
      run(opts, async ({ services }) => {
        const app = opts.client === undefined ? undefined : await services.apps.getByClientId(opts.client);
        const all = await services.webhooks.list(app?.id);
        const webhooks = all.map(webhookJson);
        const rows = all.map((w) => [
          w.id,
          w.clientId,
          w.url,
          w.types?.join(',') ?? 'every type',
          w.eventSlug,
          w.enabled ? 'enabled' : `disabled: ${w.disabledReason ?? ''}`,
          lastText(w.lastDelivery),
        ]);
        const human = rows.length ? table(['ID', 'CLIENT ID', 'URL', 'TYPES', 'EVENT', 'STATE', 'LAST'], rows) : 'none';
        return { json: { webhooks }, human };
      }),
    );
  webhook
    .command('delete')
    .description('delete a webhook and its deliveries')
    .argument('<id>', 'webhook id')
    .option('--json', 'print one JSON object')
    .action((raw: string, opts: { json?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          await services.webhooks.delete(id(raw, 'the webhook id'));
          return { json: { deleted: Number(raw) }, human: `deleted webhook ${raw}` };
        },
        { write: { action: 'webhook.deleted', subject: `webhook ${raw}` } },
      ),
    );
  webhook
    .command('enable')
    .description('enable a webhook disabled after its failures; what was queued before is sent')
    .argument('<id>', 'webhook id')
    .option('--json', 'print one JSON object')
    .action((raw: string, opts: { json?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const json = webhookJson(await services.webhooks.enable(id(raw, 'the webhook id')));
          return { json, human: `enabled webhook ${raw}` };
        },
        { write: { action: 'webhook.enabled', subject: `webhook ${raw}` } },
      ),
    );
  webhook
    .command('ping')
    .description('queue a test delivery (type webhook.ping), sent by the running server, never retried')
    .argument('<id>', 'webhook id')
    .option('--json', 'print one JSON object')
    .action((raw: string, opts: { json?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const delivery = deliveryJson(await services.webhooks.ping(id(raw, 'the webhook id')));
          return { json: delivery, human: `queued ping ${delivery.id} (${delivery.message_id})` };
        },
        { write: { action: 'webhook.pinged', subject: `webhook ${raw}` } },
      ),
    );
  webhook
    .command('deliveries')
    .description("a webhook's recent deliveries and attempts (time, status, duration, error), newest first")
    .argument('<id>', 'webhook id')
    .option('--json', 'print one JSON object')
    .action((raw: string, opts: { json?: boolean }) =>
      run(opts, async ({ services }) => {
        const { deliveries, attempts } = await services.webhooks.history(id(raw, 'the webhook id'));
        const json = { deliveries: deliveries.map(deliveryJson), attempts: attempts.map(attemptJson) };
        const attemptRows = json.attempts.map((a) => [a.at, a.delivery_id, a.status, `${a.duration_ms} ms`, a.error]);
        const deliveryRows = json.deliveries.map((d) => [d.id, d.message_id, d.state, d.attempts, d.last_error]);
        const human = [
          'attempts:',
          attemptRows.length ? table(['TIME', 'DELIVERY', 'STATUS', 'DURATION', 'ERROR'], attemptRows) : 'none',
          'deliveries:',
          deliveryRows.length ? table(['ID', 'WEBHOOK-ID', 'STATE', 'ATTEMPTS', 'LAST ERROR'], deliveryRows) : 'none',
        ].join('\n');
        return { json, human };
      }),
    );
  webhook
    .command('redeliver')
    .description('send a delivery again (same webhook-id), its retry schedule from the start')
    .argument('<delivery-id>', 'delivery id (from `roster webhook deliveries`)')
    .option('--json', 'print one JSON object')
    .action((raw: string, opts: { json?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const delivery = deliveryJson(await services.webhooks.redeliver(id(raw, 'the delivery id')));
          return { json: delivery, human: fields({ queued: delivery.id, 'webhook-id': delivery.message_id }) };
        },
        { write: { action: 'webhook.redelivered', subject: `delivery ${raw}` } },
      ),
    );
}
