/** The Sessions page's API. */
import type { StudioPageApi, StudioContext } from './routes';

export function sessionsPage(_context: StudioContext): StudioPageApi {
  return { routes: [] };
}
