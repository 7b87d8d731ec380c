// The pre-execution filters moved to lib/filters/pre.ts: ingestion (lib/)
// runs them before queueing a run, and lib/ must not import agent/.
export * from '../../lib/filters/pre';
