export default function ForbiddenPage() {
  return (
    <main className="page">
      <h1 className="page-title">Not allowed</h1>
      <p className="page-subtitle">Your roles do not include this page. Ask an admin if you need access.</p>
    </main>
  );
}
