import type { Knex } from 'knex';
import { sealPayload, type Payload } from '../oidc-payload.js';

// Sessions and interactions stored before their ids (cookie values) were left out of the payload.
const MODELS = ['Session', 'Interaction'];
const BATCH = 500;

export async function up(knex: Knex): Promise<void> {
  let after = { model: '', id: '' };
  for (;;) {
    const rows = await knex('oidc_payloads')
      .whereIn('model', MODELS)
      .andWhere(
        (q) =>
          void q
            .where('model', '>', after.model)
            .orWhere((same) => void same.where('model', after.model).andWhere('id', '>', after.id)),
      )
      .orderBy([{ column: 'model' }, { column: 'id' }])
      .limit(BATCH)
      .select<{ model: string; id: string; payload: string }[]>('model', 'id', 'payload');
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as Payload;
      if (typeof payload.jti !== 'string') continue;
      const sealed = JSON.stringify(sealPayload(row.model, payload.jti, payload));
      await knex('oidc_payloads').where({ model: row.model, id: row.id }).update({ payload: sealed });
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!;
  }
}

// The ids are gone for good (only their hashes are stored): the previous version could not resume these.
export async function down(knex: Knex): Promise<void> {
  await knex('oidc_payloads').whereIn('model', MODELS).delete();
}
