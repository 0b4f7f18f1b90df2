/** The Traces page's API. */
import type { StudioPageApi, StudioContext } from './routes';

export function tracesPage(_context: StudioContext): StudioPageApi {
  return { routes: [] };
}
