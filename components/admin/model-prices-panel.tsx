'use client';

import { useState, type FormEvent } from 'react';
import { formatDateTime } from '@/common/format';
import { describeError } from './api';
import { useAdminModelPrices, useSaveModelPrices, type ModelPrice, type ModelPriceTable } from './use-admin-model-prices';

// The model price table (PUT /api/admin/model-prices): USD per million input
// and output tokens per model name. Run costs are computed from it; a model
// that is not listed costs "unknown", never $0.

interface Row {
  key: number;
  model: string;
  input: string;
  output: string;
}

function rowsOf(prices: Record<string, ModelPrice>): Row[] {
  return Object.entries(prices)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, p], i) => ({ key: i, model, input: String(p.inputPerMTokUsd), output: String(p.outputPerMTokUsd) }));
}

/** The table from the rows, or the first problem to show. */
function tableOf(rows: Row[]): { prices: Record<string, ModelPrice> } | { problem: string } {
  const prices: Record<string, ModelPrice> = {};
  for (const [i, row] of rows.entries()) {
    const model = row.model.trim();
    if (!model) return { problem: `Row ${i + 1}: the model name is empty.` };
    if (/\s/.test(model)) return { problem: `Row ${i + 1}: a model name has no spaces.` };
    if (Object.hasOwn(prices, model)) return { problem: `${model} is listed twice.` };
    const input = Number(row.input);
    const output = Number(row.output);
    if (row.input.trim() === '' || !Number.isFinite(input) || input < 0)
      return { problem: `${model}: the input price must be a number of dollars, 0 or more.` };
    if (row.output.trim() === '' || !Number.isFinite(output) || output < 0)
      return { problem: `${model}: the output price must be a number of dollars, 0 or more.` };
    prices[model] = { inputPerMTokUsd: input, outputPerMTokUsd: output };
  }
  return { prices };
}

/** Keyed by the table's updatedAt: a save (or someone else's) starts a fresh draft from the server's table. */
function PriceEditor({ table }: { table: ModelPriceTable }) {
  const save = useSaveModelPrices();
  const [rows, setRows] = useState<Row[]>(() => rowsOf(table.prices));
  const [nextKey, setNextKey] = useState(rows.length);
  const [problem, setProblem] = useState<string | null>(null);
  const update = (key: number, patch: Partial<Row>) => setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const result = tableOf(rows);
    if ('problem' in result) {
      setProblem(result.problem);
      return;
    }
    setProblem(null);
    save.mutate({ prices: result.prices, ifUpdatedAt: table.updatedAt });
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="model-prices-form">
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Model prices">
        <table className="table">
          <thead>
            <tr>
              <th>Model</th>
              <th>Input, $ per 1M tokens</th>
              <th>Output, $ per 1M tokens</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={4} className="empty">
                  No prices yet: every model run costs “unknown”.
                </td>
              </tr>
            )}
            {rows.map((row, i) => (
              <tr key={row.key} data-testid={`price-row-${i}`}>
                <td>
                  <input
                    className="input mono"
                    aria-label={`Model name, row ${i + 1}`}
                    placeholder="gpt-4.1"
                    value={row.model}
                    onChange={(e) => update(row.key, { model: e.target.value })}
                    data-testid={`price-model-${i}`}
                  />
                </td>
                <td>
                  <input
                    className="input mono"
                    inputMode="decimal"
                    aria-label={`Input price, row ${i + 1}`}
                    value={row.input}
                    onChange={(e) => update(row.key, { input: e.target.value })}
                    data-testid={`price-input-${i}`}
                  />
                </td>
                <td>
                  <input
                    className="input mono"
                    inputMode="decimal"
                    aria-label={`Output price, row ${i + 1}`}
                    value={row.output}
                    onChange={(e) => update(row.key, { output: e.target.value })}
                    data-testid={`price-output-${i}`}
                  />
                </td>
                <td className="admin-actions">
                  <button
                    className="btn btn-small"
                    type="button"
                    onClick={() => setRows((rs) => rs.filter((r) => r.key !== row.key))}
                    data-testid={`price-remove-${i}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {(problem || save.isError) && (
        <div className="alert alert-error" role="alert" data-testid="price-error">
          {problem ?? describeError(save.error)}
        </div>
      )}
      <div className="row">
        <button
          className="btn"
          type="button"
          onClick={() => {
            setRows((rs) => [...rs, { key: nextKey, model: '', input: '', output: '' }]);
            setNextKey((k) => k + 1);
          }}
          data-testid="price-add"
        >
          Add a model
        </button>
        <button className="btn btn-primary" type="submit" disabled={save.isPending} data-testid="price-save">
          {save.isPending ? 'Saving…' : 'Save prices'}
        </button>
      </div>
    </form>
  );
}

export function ModelPricesPanel() {
  const query = useAdminModelPrices();
  return (
    <section className="stack" data-testid="model-prices-panel">
      <p className="muted">
        What each model costs, in US dollars per million tokens. A run&apos;s cost is computed from this table (a repository&apos;s own <code>prices</code> in
        its model settings win for the models they name). A model that is not listed has an unknown cost — shown as “unknown”, never $0 — and its runs&apos;
        cost budget cannot be enforced (the token budget still is). Azure answers with the model behind the deployment: list either name.
      </p>
      {query.isError && (
        <div className="alert alert-error" role="alert">
          {describeError(query.error)}
        </div>
      )}
      {query.isPending && <p className="muted">Loading prices…</p>}
      {query.data && (
        <>
          <PriceEditor key={query.data.updatedAt ?? 'none'} table={query.data} />
          <p className="muted small" data-testid="price-updated">
            {query.data.updatedAt
              ? `Last saved ${formatDateTime(query.data.updatedAt)}${query.data.updatedBy ? ` by ${query.data.updatedBy.name}` : ''}.`
              : 'Never saved.'}
          </p>
        </>
      )}
    </section>
  );
}
