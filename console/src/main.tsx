// The console's entry: resumes the session (or shows sign-in), draws the layout and picks the view
// for the URL. Everything it shows comes from the host's HTTP API (api/client.ts).
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './styles.css';
import { onUnauthorized } from './api/client.ts';
import type { SessionInfo } from './api/types.ts';
import { BASE, interceptLinks, match, navigate, useRoute } from './router.ts';
import { resumeSession, signOut } from './session.ts';
import { ErrorAlert } from './ui/alert.tsx';
import { Link } from './ui/link.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { IntegrationsPage } from './pages/integrations.tsx';
import { IntegrationPage } from './pages/integration.tsx';
import { InstallationsPage } from './pages/installations.tsx';
import { InstallationPage } from './pages/installation.tsx';
import { PreviewPage } from './pages/preview.tsx';
import { EventsPage } from './pages/events.tsx';
import { DeliveriesPage } from './pages/deliveries.tsx';
import { SecretsPage } from './pages/secrets.tsx';

type SessionState =
  | { kind: 'loading' }
  | { kind: 'signed-out'; message?: string }
  | { kind: 'signed-in'; session: SessionInfo }
  | { kind: 'failed'; error: unknown };

const NAV = [
  { href: `${BASE}/integrations`, label: 'Integrations' },
  { href: `${BASE}/installations`, label: 'Installations' },
  { href: `${BASE}/events`, label: 'Event log' },
];

function View(props: { path: string; query: URLSearchParams }) {
  const { path, query } = props;
  let params: Record<string, string> | null;
  if (path === BASE || path === `${BASE}/integrations`) return <IntegrationsPage />;
  if ((params = match(`${BASE}/integrations/:name`, path))) return <IntegrationPage name={params.name} />;
  if ((params = match(`${BASE}/integrations/:name/secrets`, path))) return <SecretsPage name={params.name} />;
  if (path === `${BASE}/installations`) return <InstallationsPage query={query} />;
  if ((params = match(`${BASE}/installations/:id`, path))) return <InstallationPage id={params.id} />;
  if ((params = match(`${BASE}/installations/:id/preview`, path))) return <PreviewPage id={params.id} />;
  if ((params = match(`${BASE}/installations/:id/deliveries`, path))) return <DeliveriesPage id={params.id} />;
  if (path === `${BASE}/events`) return <EventsPage query={query} />;
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>The console has no page at this address.</p>
      <p>
        <Link href={`${BASE}/integrations`}>Go to the integrations</Link>
      </p>
    </section>
  );
}

function App() {
  const route = useRoute();
  const [state, setState] = useState<SessionState>({ kind: 'loading' });
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    onUnauthorized((message) =>
      setState({ kind: 'signed-out', message: `Your console session has ended (${message}).` }),
    );
    resumeSession().then(
      (session) => setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
      (error: unknown) => setState({ kind: 'failed', error }),
    );
  }, []);

  // A new view: move the focus to its heading, so keyboard and screen-reader users start there.
  useEffect(() => {
    const heading = main.current?.querySelector<HTMLElement>('h1');
    if (heading && document.activeElement !== heading && !main.current?.contains(document.activeElement))
      heading.focus();
  }, [route.path, state.kind]);

  if (state.kind === 'loading') {
    return (
      <main id="main" ref={main}>
        <p role="status">Loading the console…</p>
      </main>
    );
  }
  if (state.kind === 'failed') {
    return (
      <main id="main" ref={main}>
        <h1 tabIndex={-1}>Integration host console</h1>
        <ErrorAlert error={state.error} context="Could not reach the host" />
      </main>
    );
  }
  if (state.kind === 'signed-out') {
    return (
      <main id="main" ref={main} class="narrow">
        <SignInPage message={state.message} onSignedIn={(session) => setState({ kind: 'signed-in', session })} />
      </main>
    );
  }
  const leave = async () => {
    try {
      await signOut();
    } finally {
      setState({ kind: 'signed-out', message: 'You are signed out.' });
      navigate(`${BASE}/integrations`, { replace: true });
    }
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Integration host</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  aria-current={
                    route.path === item.href || (item.href !== BASE && route.path.startsWith(`${item.href}/`))
                      ? 'page'
                      : undefined
                  }
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={leave}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <View path={route.path} query={route.query} />
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  interceptLinks(document.body);
  root.textContent = '';
  render(<App />, root);
}
