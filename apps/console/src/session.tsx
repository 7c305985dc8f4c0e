import { createContext, useContext, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from './api/client';
import { queries } from './api/queries';
import type { components } from './api/schema';
import { ErrorPanel, Loading } from './components/states';
import { SignInPage } from './pages/sign-in';

export type Session = components['schemas']['ConsoleSessionDto'];

const SessionContext = createContext<Session | null>(null);

/** Who is signed in; only inside `<SignedIn>`. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession() outside <SignedIn>');
  return session;
}

/** Renders its children for a signed-in user, the sign-in page otherwise. */
export function SignedIn({ children }: { children: ReactNode }) {
  const session = useQuery(queries.session());
  if (session.isPending) return <Loading label="Checking your sign-in" />;
  if (session.error instanceof ApiError && session.error.status === 401) return <SignInPage />;
  if (session.error) return <ErrorPanel error={session.error} retry={() => void session.refetch()} />;
  return <SessionContext.Provider value={session.data}>{children}</SessionContext.Provider>;
}
