'use client';

import { useState, type FormEvent } from 'react';
import { signInWithPassword, startSingleSignOn } from './auth-client';

export interface DemoAccount {
  email: string;
  name: string;
  password: string;
  roles: string[];
}

export function SignInForm({
  callbackUrl,
  initialError,
  oidcName,
  demoUsers,
}: {
  /** already checked to be a same-origin path (callback-url.ts) */
  callbackUrl: string;
  initialError: string | null;
  /** the OIDC button's label, or null when OIDC is off */
  oidcName: string | null;
  demoUsers: DemoAccount[] | null;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const result = await signInWithPassword({ email, password });
    if (!result.ok) {
      // the server's own reason (a refused origin, a lock, a wrong password), not a guess
      setError(result.message);
      setPending(false);
      return;
    }
    // a full load so the server-rendered pages see the new session cookie
    window.location.assign(callbackUrl);
  }

  async function onSingleSignOn() {
    setError(null);
    const result = await startSingleSignOn({ provider: 'oidc', callbackUrl });
    if (result.ok && result.url) window.location.assign(result.url);
    else if (!result.ok) setError(result.message);
  }

  return (
    <div className="stack">
      <form className="stack" onSubmit={onSubmit} noValidate data-testid="signin-form">
        {error && (
          <div className="alert alert-error" role="alert" data-testid="signin-error">
            {error}
          </div>
        )}
        <label className="field">
          Email
          <input
            className="input"
            type="email"
            name="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="signin-email"
          />
        </label>
        <label className="field">
          Password
          <input
            className="input"
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="signin-password"
          />
        </label>
        <button className="btn btn-primary signin-submit" type="submit" disabled={pending || !email || !password} data-testid="signin-submit">
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>

      {oidcName && (
        <>
          <div className="signin-divider" aria-hidden>
            <span>or</span>
          </div>
          <button type="button" className="btn signin-submit" onClick={onSingleSignOn} data-testid="signin-oidc">
            Continue with {oidcName}
          </button>
        </>
      )}

      {demoUsers && demoUsers.length > 0 && (
        <section className="signin-demo" data-testid="demo-users" aria-labelledby="demo-users-title">
          <h2 id="demo-users-title" className="signin-demo-title">
            Demo accounts
          </h2>
          <p className="muted small">Shown because this server runs in demo mode. Pick one to fill the form.</p>
          <table className="table signin-demo-table">
            <thead>
              <tr>
                <th>Role</th>
                <th>Email</th>
                <th>Password</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {demoUsers.map((u) => (
                <tr key={u.email} data-testid="demo-user-row">
                  <td>{u.roles.map((r) => r.toLowerCase()).join(', ')}</td>
                  <td className="mono">{u.email}</td>
                  <td className="mono">{u.password}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => {
                        setEmail(u.email);
                        setPassword(u.password);
                        setError(null);
                      }}
                      data-testid={`demo-use-${u.roles[0]?.toLowerCase() ?? 'user'}`}
                    >
                      Use
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
