import type { DashboardSettings } from '../api/types';

/**
 * Sign-in as the spec asks: a public client, code flow with PKCE, `offline_access` so a refresh
 * token outlives the first access token. The tokens live in memory only (a reload signs in again,
 * silently while the authority's session lasts); only the PKCE state waits in sessionStorage
 * for the redirect back.
 */
export interface Session {
  /** False when the server names no authority: the API then has nothing to authenticate. */
  readonly enabled: boolean;
  token(): Promise<string | null>;
  /** Leaves for the authority and comes back to `returnTo` (path + query). */
  signIn(returnTo: string): Promise<void>;
  signOut(): Promise<void>;
  userName(): string | null;
}

interface ReturnState { returnTo: string }

export async function startSession(settings: DashboardSettings, location: Location = window.location): Promise<{ session: Session; returnTo: string | null }> {
  if (!settings.authority || !settings.clientId) return { session: anonymousSession, returnTo: null };
  // Loaded only where there is sign-in: an installation without an authority never ships it.
  const { InMemoryWebStorage, UserManager, WebStorageStateStore } = await import('oidc-client-ts');
  const origin = location.origin;
  const manager = new UserManager({
    authority: settings.authority,
    client_id: settings.clientId,
    redirect_uri: `${origin}${settings.redirectPath}`,
    post_logout_redirect_uri: `${origin}/`,
    response_type: 'code',
    scope: settings.scopes,
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    automaticSilentRenew: true,
    // Refresh tokens renew the session; no hidden iframe (the page's policy frames nothing).
    monitorSession: false,
    ...(settings.audience ? { extraQueryParams: { resource: settings.audience } } : {}),
  });
  let returnTo: string | null = null;
  if (location.pathname === settings.redirectPath) {
    const user = await manager.signinRedirectCallback();
    returnTo = (user.state as ReturnState | undefined)?.returnTo ?? '/runs';
  }
  const session: Session = {
    enabled: true,
    async token() {
      const user = await manager.getUser();
      if (!user || user.expired) return null;
      return user.access_token;
    },
    async signIn(to) {
      await manager.signinRedirect({ state: { returnTo: to } satisfies ReturnState });
    },
    async signOut() {
      await manager.removeUser();
      await manager.signoutRedirect().catch(() => undefined);
    },
    userName() {
      return currentName;
    },
  };
  let currentName: string | null = null;
  manager.events.addUserLoaded((user) => {
    currentName = (user.profile.preferred_username as string | undefined) ?? user.profile.name ?? user.profile.sub;
  });
  const user = await manager.getUser();
  if (user) currentName = (user.profile.preferred_username as string | undefined) ?? user.profile.name ?? user.profile.sub;
  return { session, returnTo };
}

const anonymousSession: Session = {
  enabled: false,
  async token() {
    return null;
  },
  async signIn() {},
  async signOut() {},
  userName() {
    return null;
  },
};
