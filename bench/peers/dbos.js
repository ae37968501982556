/** DBOS Transact on PostgreSQL: the five steps as one workflow of DBOS steps, each checkpointed in its system database. */
const { Pool } = require('pg');
const w = require('./workload');

async function startDbos({ databaseUrl }) {
  const { DBOS } = require('@dbos-inc/dbos-sdk');
  const pool = new Pool({ connectionString: databaseUrl, max: 20 });
  const effects = w.postgresEffects(pool);
  await effects.setup();
  const workflow = DBOS.registerWorkflow(
    async (req) => {
      const classification = await DBOS.runStep(async () => w.classify(req.message), { name: 'classify' });
      const decision = await DBOS.runStep(async () => w.decide(classification), { name: 'decide' });
      const task = await DBOS.runStep(async () => w.toolCall(req.request_id, decision), { name: 'tool' });
      await DBOS.runStep(() => effects.write(req.user_id, task), { name: 'write' });
      return DBOS.runStep(() => effects.audit(w.auditRecord(req.request_id, req.user_id, decision, task)), { name: 'audit' });
    },
    { name: 'benchRequest' },
  );
  DBOS.setConfig({ name: 'runledger-bench', systemDatabaseUrl: databaseUrl, systemDatabasePoolSize: 20, logLevel: 'error' });
  await DBOS.launch();
  return {
    async run(req) {
      const handle = await DBOS.startWorkflow(workflow, { workflowID: req.request_id })(req);
      const out = await handle.getResult();
      if (!out?.audited) throw new Error('dbos: the workflow ended without its audit step');
    },
    async stop() {
      await DBOS.shutdown();
      await pool.end();
    },
  };
}

module.exports = { startDbos };
