import type { ReactNode } from 'react';
import { Link, useParams } from '@tanstack/react-router';
import { AdminOnly } from './shell';

/**
 * A page of someone's data: the caller's own (`/account/…`), or, for an admin, the user of
 * `/users/:userId/…`, with a way back to that user. `children` renders the data of whom it is given.
 */
export function OwnOrUsers({
  own,
  users,
  children,
}: {
  own: { title: string; intro?: ReactNode };
  users: { title: string };
  children: (userId?: string) => ReactNode;
}) {
  const { userId } = useParams({ strict: false });
  if (!userId)
    return (
      <>
        <h1>{own.title}</h1>
        {own.intro}
        {children()}
      </>
    );
  return (
    <AdminOnly>
      <p>
        <Link to="/users/$userId" params={{ userId }}>
          ← User
        </Link>
      </p>
      <h1>{users.title}</h1>
      {children(userId)}
    </AdminOnly>
  );
}
