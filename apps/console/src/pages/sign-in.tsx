import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorPanel, Loading } from '../components/states';

/** How this server lets people sign in to the console. */
function useSignInMethods() {
  return useQuery({ queryKey: ['sign-in-methods'], queryFn: () => unwrap(api.GET('/console/sign-in/methods')), staleTime: Infinity });
}

/** The page a signed-out visitor sees: the company's sign-in, and how an operator gets a one-time link. */
export function SignInPage() {
  const methods = useSignInMethods();
  const returnTo = window.location.pathname + window.location.search;
  return (
    <main className="sign-in" id="main">
      <h1>Sign in to Mirobody</h1>
      {methods.isPending && <Loading />}
      {methods.error && <ErrorPanel error={methods.error} retry={() => void methods.refetch()} />}
      {methods.data?.oidc && (
        <p>
          <a className="button primary" href={`/console/sign-in/oidc?return=${encodeURIComponent(returnTo)}`}>
            Sign in with your company account
          </a>
        </p>
      )}
      <section aria-labelledby="link-heading">
        <h2 id="link-heading">{methods.data?.oidc ? 'Or with a one-time link' : 'With a one-time link'}</h2>
        <p>An operator of this server prints a link that signs you in once, within 10 minutes:</p>
        <pre>
          <code>npm run -s cli -- console-link --email you@example.com</code>
        </pre>
      </section>
    </main>
  );
}

/** `/console/sign-in/link#<token>`: trades the link's token for a session, then opens the console. */
export function LinkSignInPage() {
  const [error, setError] = useState<unknown>();
  // A link works once: it is sent once, however often React runs the effect.
  const sent = useRef(false);
  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    const token = window.location.hash.slice(1);
    // The token leaves the address bar (and the history) before anything else happens.
    window.history.replaceState(null, '', window.location.pathname);
    (async () => {
      if (!token) throw new Error('This address holds no sign-in link: open the whole link you were given.');
      await unwrap(api.POST('/console/sign-in/link', { body: { token } }));
      // A fresh start, as after a sign-in at the identity provider: nothing read while signed out stays.
      window.location.replace('/console/');
    })().catch(setError);
  }, []);
  return (
    <main className="sign-in" id="main">
      <h1>Signing in</h1>
      {error ? (
        <>
          <ErrorPanel error={error} />
          <p>
            Ask an operator for a new link, or go to the <a href="/console/">sign-in page</a>.
          </p>
        </>
      ) : (
        <Loading label="Checking your link" />
      )}
    </main>
  );
}
