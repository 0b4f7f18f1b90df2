/** The studio's pages, server side: each one's API module. */
import { chatPage } from './chat-api';
import type { StudioPageFactory } from './routes';
import { sessionsPage } from './sessions-api';
import { toolsPage } from './tools-api';
import { tracesPage } from './traces-api';

export const PAGES: readonly StudioPageFactory[] = [toolsPage, chatPage, sessionsPage, tracesPage];
