'use client';

import { useState } from 'react';

// For reviewers who apply in their own checkout: the patch file and the
// command to apply it. (The CLI's `flowfix fix apply` does both and records it.)
export function PatchActions({ fixId }: { fixId: string }) {
  const fileName = `flowfix-${fixId}.patch`;
  const command = `git apply --index ${fileName}`;
  const [copied, setCopied] = useState<'ok' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied('ok');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="patch-actions" data-testid="patch-actions">
      <a className="btn btn-small" href={`/api/fixes/${encodeURIComponent(fixId)}/patch`} download={fileName} data-testid="download-patch">
        Download patch
      </a>
      <div className="patch-command">
        <input
          className="input mono"
          readOnly
          value={command}
          aria-label="Command to apply the patch"
          data-testid="git-apply-command"
          onFocus={(e) => e.target.select()}
        />
        <button type="button" className="btn btn-small" onClick={() => void copy()} data-testid="copy-git-apply">
          {copied === 'ok' ? 'Copied' : 'Copy'}
        </button>
        {copied === 'failed' && <span className="muted small">Select the command and copy it.</span>}
      </div>
    </div>
  );
}
