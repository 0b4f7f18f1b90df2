/** The Chat page's API. */
import type { StudioPageApi, StudioContext } from './routes';

export function chatPage(_context: StudioContext): StudioPageApi {
  return { routes: [] };
}
