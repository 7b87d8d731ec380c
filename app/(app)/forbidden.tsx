import Link from 'next/link';

// Rendered with status 403 by forbidden() (lib/auth/page.ts) inside the app's
// shell, at the address that was asked for: a page the user's roles do not open.
export default function Forbidden() {
  return (
    <main className="page" data-testid="forbidden">
      <h1 className="page-title">Not allowed</h1>
      <p className="page-subtitle">Your roles do not include this page. Ask an admin if you need access.</p>
      <p>
        <Link href="/">Back to your start page</Link>
      </p>
    </main>
  );
}
