/**
 * `toolwright/studio`: a local web app to see and drive a registry's tools, an agent's chat, the
 * stored sessions and memories, and the traces of recent runs. Loaded only when a studio starts.
 */
export { createStudio } from './studio';
export type { Studio, StudioOptions } from './studio';
export type { StudioIdentity } from './routes';
