import { Service } from 'typedi';
import type { ToolDefinition, ToolInterface } from 'toolwright';
import { MAX_UPLOAD_BYTES, UploadRejected, UploadStorage } from './upload-storage.service';

export interface FileProcessorArgs {
  file_content: string;
  filename: string;
}

/**
 * The PHP kit's file tool in its own style: `definition()` is written by hand as JSON Schema
 * and the registry validates arguments against it (no `@Param`). `@Service()` makes TypeScript
 * emit the constructor's types, so the container can inject the storage.
 */
@Service()
export class FileProcessorTool implements ToolInterface<FileProcessorArgs> {
  constructor(private readonly storage: UploadStorage) {}

  definition(): ToolDefinition {
    return {
      name: 'file_processor',
      description: 'Process uploaded files',
      parameters: {
        type: 'object',
        properties: {
          file_content: {
            type: 'string',
            description: `Base64 encoded content, at most ${MAX_UPLOAD_BYTES} bytes once decoded`,
            maxLength: Math.ceil(MAX_UPLOAD_BYTES / 3) * 4,
          },
          filename: {
            type: 'string',
            description: 'Relative file name such as "report.csv" or "invoices/march.pdf"',
            minLength: 1,
            maxLength: 255,
          },
        },
        required: ['file_content', 'filename'],
        additionalProperties: false,
      },
    };
  }

  async execute({ file_content, filename }: FileProcessorArgs) {
    try {
      const saved = await this.storage.save(filename, file_content);
      return { status: 'success', path: saved.path, size: saved.size };
    } catch (error) {
      if (error instanceof UploadRejected) return { status: 'error', message: error.message, error_code: error.code };
      throw error; // a full disk is not the model's to fix
    }
  }
}
