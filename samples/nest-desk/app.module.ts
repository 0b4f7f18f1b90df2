import { Global, Module, type Type } from '@nestjs/common';
import type { Model } from 'toolwright';
import { ToolwrightModule, type StoreConfig } from 'toolwright/nestjs';
import { DESK_MODEL, DeskModule } from './desk.module';

export interface NestDeskOptions {
  model: Model;
  /** Where sessions and the desk's memory live. Default: SQLite at ./.toolwright/state.db. */
  store?: StoreConfig;
}

/**
 * The app's root module: toolwright configured once (the store; bob may look orders up but not
 * refund them), the model as a global provider, and the desk.
 */
export function nestDeskModule(options: NestDeskOptions): Type {
  @Global()
  @Module({ providers: [{ provide: DESK_MODEL, useValue: options.model }], exports: [DESK_MODEL] })
  class ModelModule {}

  @Module({
    imports: [
      ModelModule,
      ToolwrightModule.forRoot({
        store: options.store,
        // Policy lives below the endpoints: the chat and MCP controllers both ask it, with the guard's user.
        authorize: (tool, context) => !(tool.name === 'process_refund' && context.userId === 'bob'),
      }),
      DeskModule,
    ],
  })
  class NestDeskAppModule {}
  return NestDeskAppModule;
}
