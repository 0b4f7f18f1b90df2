/** The conformance suite's resources, written as a user would: classes, their content from `read`. */
import { IsString, Matches } from 'class-validator';
import type { ResourceInterface } from 'toolwright';
import { Param, Resource, ResourceTemplate } from 'toolwright';

/** A 1×1 PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** resources-read-text. */
@Resource({ uri: 'test://static-text', name: 'static_text', description: 'A static text resource', mimeType: 'text/plain' })
export class StaticTextResource implements ResourceInterface {
  read(): string {
    return 'This is the content of the static text resource.';
  }
}

/** resources-read-binary: bytes go out as base64. */
@Resource({ uri: 'test://static-binary', name: 'static_binary', description: 'A static PNG image', mimeType: 'image/png' })
export class StaticBinaryResource implements ResourceInterface {
  read(): Uint8Array {
    return Buffer.from(PIXEL, 'base64');
  }
}

/** resources-subscribe / -unsubscribe: the app calls `registry.resourceUpdated('test://watched-resource')` when it changes. */
@Resource({ uri: 'test://watched-resource', name: 'watched_resource', description: 'A resource clients can subscribe to' })
export class WatchedResource implements ResourceInterface {
  private version = 1;

  read(): string {
    return `Watched resource, version ${this.version}`;
  }

  bump(): void {
    this.version += 1;
  }
}

class TemplateVariables {
  @Param({ description: 'The item id' })
  @IsString()
  @Matches(/^[A-Za-z0-9-]{1,32}$/)
  id!: string;
}

/** resources-templates-read: `{id}` comes validated, as a tool argument would. */
@ResourceTemplate({
  uriTemplate: 'test://template/{id}/data',
  name: 'template_data',
  description: 'Data for one id',
  mimeType: 'application/json',
  input: TemplateVariables,
})
export class TemplateDataResource implements ResourceInterface<TemplateVariables> {
  read({ id }: TemplateVariables): object {
    return { id, templateTest: true, data: `Data for ID: ${id}` };
  }
}

export const EVERYTHING_RESOURCES = [StaticTextResource, StaticBinaryResource, WatchedResource, TemplateDataResource];
