import { createContext, useContext } from 'react';
import type { ApiClient } from '../api/client';
import type { DashboardSettings } from '../api/types';
import type { Session } from '../auth/session';
import type { HubClient } from '../hub/hub-client';

/** What every page reaches: set up once in main.tsx, before the first render. */
export interface AppServices {
  settings: DashboardSettings;
  session: Session;
  api: ApiClient;
  hub: HubClient;
}

export const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices outside ServicesContext');
  return services;
}
