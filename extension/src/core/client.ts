// The extension's one way to talk to the flowfix server: a personal token
// (made for the editor on the Tokens page) in the Authorization header, and
// every failure turned into one line a developer can act on. No 'vscode'
// import: tested with node --test against the real server.
import type { BranchState } from '../../../common/branch-state';
import type { RejectReasonValue } from '../../../common/reject-reasons';

export type FlowfixErrorKind = 'unreachable' | 'server' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'invalid';

export class FlowfixError extends Error {
  constructor(
    readonly kind: FlowfixErrorKind,
    message: string,
    readonly status?: number,
    /** a page that helps (the Tokens page for a refused token) */
    readonly link?: string,
  ) {
    super(message);
    this.name = 'FlowfixError';
  }
}

export interface FixFile {
  path: string;
  oldPath: string | null;
  status: string;
  original: string;
  modified: string;
  complete: boolean;
  binary: boolean;
}

export interface Connection {
  serverUrl: string;
  token: string;
}

/** The server URL as settings hold it, without a trailing slash; a bad one is an error line. */
export function normaliseServerUrl(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new FlowfixError('invalid', `The setting flowfix.serverUrl is not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FlowfixError('invalid', `flowfix.serverUrl must be http(s), not ${url.protocol}`);
  return trimmed;
}

export function tokensPage(serverUrl: string): string {
  return `${serverUrl}/settings/tokens`;
}

export class FlowfixClient {
  readonly serverUrl: string;
  private readonly token: string;

  constructor(conn: Connection) {
    this.serverUrl = normaliseServerUrl(conn.serverUrl);
    this.token = conn.token.trim();
    if (!this.token.startsWith('ffp_')) {
      throw new FlowfixError('unauthenticated', 'That is not a flowfix personal token (they start with ffp_); make one for the editor on the Tokens page', 401, tokensPage(this.serverUrl));
    }
  }

  private async send(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.serverUrl}${route}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new FlowfixError('unreachable', `The flowfix server at ${this.serverUrl} cannot be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`);
    }
    if (res.ok) return res;
    throw await this.refusal(res);
  }

  private async refusal(res: Response): Promise<FlowfixError> {
    const raw = await res.text().catch(() => '');
    let message = '';
    try {
      message = (JSON.parse(raw) as { error?: { message?: string } }).error?.message ?? '';
    } catch {
      // not JSON (a proxy's page): the status says enough
    }
    const said = message ? `: ${message}` : '';
    if (res.status >= 500) return new FlowfixError('server', `The flowfix server at ${this.serverUrl} failed (HTTP ${res.status})${said}; try again later`, res.status);
    if (res.status === 401) {
      return new FlowfixError('unauthenticated', `The flowfix server refused your token${said}. Make a new one for the editor on the Tokens page`, 401, tokensPage(this.serverUrl));
    }
    if (res.status === 403) return new FlowfixError('forbidden', `Not allowed${said}`, 403);
    if (res.status === 404) return new FlowfixError('not_found', message || 'Not found on the flowfix server', 404);
    if (res.status === 409) return new FlowfixError('conflict', message || 'The fix is no longer open for a decision', 409);
    return new FlowfixError('invalid', `The flowfix server refused the request (HTTP ${res.status})${said}`, res.status);
  }

  private async json<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await this.send(method, route, body);
    try {
      return (await res.json()) as T;
    } catch {
      throw new FlowfixError('server', `The flowfix server at ${this.serverUrl} answered ${route} with something that is not JSON`);
    }
  }

  /** The change flowfix has for this checkout's repository (by its remotes) and branch. */
  branchState({ remotes, branch }: { remotes: string[]; branch: string }): Promise<BranchState> {
    const q = new URLSearchParams();
    for (const r of remotes) q.append('remote', r);
    q.set('branch', branch);
    return this.json('GET', `/api/changes/for-branch?${q}`);
  }

  /** The fix's diff, and its status at this moment. */
  async patch(fixId: string): Promise<{ diff: string; status: string }> {
    const res = await this.send('GET', `/api/fixes/${encodeURIComponent(fixId)}/patch`);
    return { diff: await res.text(), status: res.headers.get('x-flowfix-fix-status') ?? 'UNKNOWN' };
  }

  /** Each file of the fix, both sides at the fix's revision (what the preview falls back on). */
  async files(fixId: string): Promise<FixFile[]> {
    return (await this.json<{ files: FixFile[] }>('GET', `/api/fixes/${encodeURIComponent(fixId)}/files`)).files;
  }

  /** Records that you opened the fix's diff (surface IDE: the server reads it from the token). */
  preview(fixId: string): Promise<{ preview: { decisionId: string; surface: string } | null }> {
    return this.json('POST', `/api/fixes/${encodeURIComponent(fixId)}/preview`, {});
  }

  /** Records your accept of a fix you applied in your checkout at `headRev` (refused when stale). */
  acceptLocal(fixId: string, headRev: string): Promise<{ fixId: string; decisionId: string }> {
    return this.json('POST', `/api/fixes/${encodeURIComponent(fixId)}/accept`, { mode: 'local', headRev });
  }

  /** Has the server commit the fix on the change's branch, as the dashboard's accept does. */
  acceptAsCommit(fixId: string): Promise<{ commit?: string; branch?: string }> {
    return this.json('POST', `/api/fixes/${encodeURIComponent(fixId)}/accept`, {});
  }

  reject(fixId: string, reason: RejectReasonValue, text?: string): Promise<unknown> {
    return this.json('POST', `/api/fixes/${encodeURIComponent(fixId)}/reject`, { reason, ...(text ? { text } : {}) });
  }

  /**
   * Follows a run's saved events (Server-Sent Events) until it ends or
   * `signal` aborts; `onEvent` is called for every event as it arrives.
   */
  async followRun(runId: string, onEvent: (event: { id: string | null; type: string; data: string }) => void, signal: AbortSignal): Promise<void> {
    const res = await this.send('GET', `/api/runs/${encodeURIComponent(runId)}/events`, undefined, signal);
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          let id: string | null = null;
          let type = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('event:')) type = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length === 0 && type === 'message') continue; // a comment or keep-alive
          onEvent({ id, type, data: data.join('\n') });
          if (type === 'end') return;
        }
      }
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      throw err;
    } finally {
      reader.releaseLock();
    }
  }
}
