import { redirect } from 'next/navigation';
import { requirePageUser } from '@/lib/auth/page';
import { homeFor } from '@/common/roles';

export const dynamic = 'force-dynamic';

// The first page the signed-in user's roles open (signing in lands here).
export default async function Home() {
  const user = await requirePageUser();
  redirect(homeFor(user.roles));
}
