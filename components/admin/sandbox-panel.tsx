'use client';

import { useEffect, useState } from 'react';
import { requestJson } from '@/components/api-client';

interface SandboxStatus {
  mode: 'sandboxed' | 'unsafe';
  probe: { ok: true } | { ok: false; reason: string };
}

// The sandbox mode switch on the admin page (PUT /api/admin/sandbox).
export function SandboxPanel() {
  const [status, setStatus] = useState<SandboxStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    requestJson<SandboxStatus>('/api/admin/sandbox').then(setStatus, (err: Error) => setError(err.message));
  }, []);
  const change = async (mode: SandboxStatus['mode']) => {
    if (mode === 'unsafe' && !window.confirm('Run repository code without the sandbox when it does not work? It would have access to this server.')) return;
    try {
      setStatus(await requestJson<SandboxStatus>('/api/admin/sandbox', { method: 'PUT', body: { mode } }));
      // the banner on every page follows the stored mode
      window.location.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  if (!status) return error ? <p className="error">{error}</p> : null;
  return (
    <section className="card" data-testid="sandbox-panel">
      <h2 className="card-title">Sandbox</h2>
      <p>
        {status.probe.ok ? 'The sandbox works on this machine.' : `The sandbox does not work on this machine: ${status.probe.reason}`} Mode:{' '}
        <strong data-testid="sandbox-mode">{status.mode}</strong>.
      </p>
      {status.mode === 'unsafe' ? (
        <button type="button" className="btn btn-small" onClick={() => void change('sandboxed')}>
          Require the sandbox
        </button>
      ) : (
        <button type="button" className="btn btn-small btn-danger" onClick={() => void change('unsafe')}>
          Allow unsafe mode
        </button>
      )}
      {error && <p className="error">{error}</p>}
    </section>
  );
}
