'use client';

import { useState } from 'react';
import { signOutNow } from '@/components/signin/auth-client';

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onClick() {
    setPending(true);
    setError(null);
    const result = await signOutNow();
    if (result.ok) {
      // a full load: the server pages no longer see a session
      window.location.assign('/signin');
      return;
    }
    setError(result.message);
    setPending(false);
  }

  return (
    <>
      <button type="button" className="btn btn-small" onClick={onClick} disabled={pending} data-testid="sign-out">
        {pending ? 'Signing out…' : 'Sign out'}
      </button>
      {error && (
        <span className="alert alert-error small" role="alert" data-testid="sign-out-error">
          {error}
        </span>
      )}
    </>
  );
}
