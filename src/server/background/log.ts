/** The slice of a pino logger a background loop uses (fastify's `app.log` fits): the job runner's, retention's, the webhook deliverer's. */
export interface BackgroundLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}
