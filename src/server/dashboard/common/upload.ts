import type { MultipartFile } from '@fastify/multipart';

/** The largest list file accepted (the API's body limit); a larger one gets a page saying so. */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
/**
 * The most an account's uploads not submitted yet may hold together: kept for free until deleted
 * or past `--upload-retention`, they are bounded per account (docs/operating.md "The dashboard").
 */
export const MAX_PENDING_UPLOAD_BYTES = 4 * MAX_UPLOAD_BYTES;

/** An uploaded file as the pages use it: its name as the browser sent it, and its bytes. */
export interface UploadedFile {
  name: string;
  content: Buffer;
}

/** Multipart's onFile: reads the file into the form's body as an UploadedFile. */
export async function bufferUpload(part: MultipartFile): Promise<void> {
  // toBuffer() throws the 413 once the file passes the size limit.
  const file: UploadedFile = { name: part.filename, content: await part.toBuffer() };
  (part as unknown as { value: UploadedFile }).value = file;
}
