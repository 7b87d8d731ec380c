import 'server-only';
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { createAppAuth } from '@octokit/auth-app';
import { Gitlab } from '@gitbeaker/rest';
import { CodeHostKind } from '../generated/prisma/enums';
import type { CodeHost } from '../generated/prisma/client';
import { AppError } from '../errors';
import { secretBox } from './secrets';

// The clients of the code hosts' APIs, built from a CodeHost row: the only
// place its secrets are decrypted. GitHub: @octokit/rest as the App (a JWT
// from the private key) or as one installation (a short-lived installation
// token the auth strategy fetches and renews), with @octokit/plugin-retry so
// a 5xx or a rate limit is retried with backoff. GitLab: @gitbeaker/rest with
// the host's token.

/** The purpose (additional authenticated data) each secret column is encrypted for. */
export const SECRET_PURPOSE = {
  privateKey: (hostId: string) => `CodeHost.privateKey:${hostId}`,
  token: (hostId: string) => `CodeHost.token:${hostId}`,
  webhookSecret: (hostId: string) => `CodeHost.webhookSecret:${hostId}`,
};

export interface ClientOptions {
  /** retries of a failed request (5xx, 429) before giving up; the job queue retries the whole delivery after that */
  retries?: number;
  /** the first retry's delay; later ones grow with the square of the attempt */
  retryAfterBaseMs?: number;
}

// read by tests and the bench to keep backoff short; production uses the plugin's defaults
const defaults: { current: ClientOptions } = { current: {} };
export function setClientDefaults(options: ClientOptions): void {
  defaults.current = options;
}

const RetryingOctokit = Octokit.plugin(retry);
export type GitHubClient = InstanceType<typeof RetryingOctokit>;

function octokitOptions(host: Pick<CodeHost, 'apiBaseUrl'>, options: ClientOptions) {
  const o = { ...defaults.current, ...options };
  return {
    baseUrl: host.apiBaseUrl.replace(/\/+$/, ''),
    userAgent: 'flowfix',
    retry: {
      ...(o.retries !== undefined ? { retries: o.retries } : {}),
      ...(o.retryAfterBaseMs !== undefined ? { retryAfterBaseValue: o.retryAfterBaseMs } : {}),
    },
    // no console noise with request details; failures surface as errors
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  };
}

function githubAppCredentials(host: CodeHost): { appId: string; privateKey: string } {
  if (host.kind !== CodeHostKind.GITHUB || !host.appId || !host.privateKeyCipher) {
    throw new AppError('conflict', `${host.name} is not a GitHub App connection`);
  }
  return { appId: host.appId, privateKey: secretBox().decrypt(host.privateKeyCipher, SECRET_PURPOSE.privateKey(host.id)) };
}

/** The GitHub App itself (JWT): lists its installations. */
export function githubAppClient(host: CodeHost, options: ClientOptions = {}): GitHubClient {
  return new RetryingOctokit({ ...octokitOptions(host, options), authStrategy: createAppAuth, auth: githubAppCredentials(host) });
}

/** One installation of the App: its repositories, with a short-lived installation token. */
export function githubInstallationClient(host: CodeHost, installationId: string, options: ClientOptions = {}): GitHubClient {
  return new RetryingOctokit({
    ...octokitOptions(host, options),
    authStrategy: createAppAuth,
    auth: { ...githubAppCredentials(host), installationId: Number(installationId) },
  });
}

/** A short-lived installation token (an hour at most), for git over HTTPS as x-access-token. */
export async function githubInstallationToken(host: CodeHost, installationId: string): Promise<string> {
  const auth = createAppAuth({ ...githubAppCredentials(host), request: githubAppClient(host).request });
  const { token } = await auth({ type: 'installation', installationId: Number(installationId) });
  return token;
}

export type GitLabClient = Gitlab<false>;

/** The GitLab API with the host's token. */
export function gitlabClient(host: CodeHost): GitLabClient {
  if (host.kind !== CodeHostKind.GITLAB || !host.tokenCipher) throw new AppError('conflict', `${host.name} is not a GitLab connection`);
  const token = secretBox().decrypt(host.tokenCipher, SECRET_PURPOSE.token(host.id));
  // gitbeaker wants the instance root; the API root the admin gave ends in /api/v4 or not
  return new Gitlab({ host: host.apiBaseUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, ''), token });
}

/** The GitLab token itself, for git over HTTPS (oauth2 / project access token). */
export function gitlabToken(host: CodeHost): string {
  if (!host.tokenCipher) throw new AppError('conflict', `${host.name} is not a GitLab connection`);
  return secretBox().decrypt(host.tokenCipher, SECRET_PURPOSE.token(host.id));
}

/** The HTTP status a host's API answered with, from an Octokit error (status) or a Gitbeaker one (cause.response.status). */
export function hostErrorStatus(err: unknown): number | undefined {
  const e = err as { status?: unknown; cause?: { response?: { status?: unknown } } } | null;
  const status = e?.status ?? e?.cause?.response?.status;
  return typeof status === 'number' ? status : undefined;
}
