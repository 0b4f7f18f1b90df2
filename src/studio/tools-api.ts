/** The Tools page's API. */
import type { StudioPageApi, StudioContext } from './routes';

export function toolsPage(_context: StudioContext): StudioPageApi {
  return { routes: [] };
}
