import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, createApiClient } from './api/client';
import { TAB_BUILD, loadSettings } from './api/settings';
import { curedBySignIn, reportRefusal } from './app/auth-refusal';
import { reportServerBuild } from './app/build-notice';
import { ServicesContext } from './app/context';
import { createAppRouter } from './app/router';
import { startSession } from './auth/session';
import { HubClient } from './hub/hub-client';
import { applyTheme, storedTheme } from './shell/theme';
import { wireHubToCache } from './app/live-cache';
import './styles.css';

const SIGN_IN_RETRY_MS = 30_000;

async function boot(): Promise<void> {
  applyTheme(storedTheme());
  const rootElement = document.getElementById('root')!;
  let settings;
  try {
    settings = await loadSettings();
  } catch (error) {
    rootElement.textContent = `The dashboard cannot reach the server: ${(error as Error).message}. Reload to try again.`;
    return;
  }
  if (settings.build !== TAB_BUILD) reportServerBuild(settings.build);
  const { session, returnTo } = await startSession(settings);
  const here = () => `${window.location.pathname}${window.location.search}${window.location.hash}`;
  if (session.enabled && !(await session.token())) {
    // Sign in before the first call; come back to the very page that was asked for.
    await session.signIn(returnTo ?? here());
    return;
  }
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      },
    },
  });
  let lastSignIn = 0;
  const api = createApiClient(session, {
    onBuildMismatch: reportServerBuild,
    onUnauthorized: (error) => {
      const refusal = error.refusal;
      if (session.enabled && refusal && curedBySignIn(refusal.reason) && Date.now() - lastSignIn > SIGN_IN_RETRY_MS) {
        lastSignIn = Date.now();
        void session.signIn(here());
        return;
      }
      reportRefusal(refusal);
    },
  });
  const hub = new HubClient(() => session.token(), wireHubToCache(queryClient, api));
  hub.start();
  const router = createAppRouter(queryClient);
  if (returnTo) await router.navigate({ href: returnTo, replace: true });
  createRoot(rootElement).render(
    <StrictMode>
      <ServicesContext.Provider value={{ settings, session, api, hub }}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </ServicesContext.Provider>
    </StrictMode>,
  );
}

void boot();
