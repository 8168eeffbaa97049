import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppConfig } from './app-config.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import { ProblemError } from '../http/errors.js';
import { receiverOfPost } from '../receivers/manage.js';
import type { EvidenceSink } from '../receivers/post-outcome.js';
import { takeSendgridPost } from '../receivers/sendgrid-post.js';
import { SnsCertificates, undiciSnsFetcher } from '../receivers/sns-fetcher.js';
import { takeSnsPost } from '../receivers/sns-post.js';
import { sendgridHookSchema, snsHookSchema } from '../schemas/evidence-receivers.js';
import type { EvidenceReceiver, ReceiverKind } from '../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** On a receiver's post: the receiver its URL names. */
    receiver: EvidenceReceiver | null;
  }
}

/** The receiver kind of each hook path. */
const KIND_OF_ROUTE: Record<string, ReceiverKind> = {
  '/v1/evidence/hooks/sendgrid/:secret': 'sendgrid',
  '/v1/evidence/hooks/sns/:secret': 'sns',
};

/** The raw body (fastify hands the buffer this scope's parser made; an empty post has none). */
const rawBody = (request: FastifyRequest): Buffer => (Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));

/**
 * The posts of ESPs to an account's evidence receivers (docs/evidence.md "Live from an ESP"): no
 * bearer token, the URL's secret names the receiver and the ESP's signature proves the sender. In a
 * scope of their own, so that the body stays the bytes that were signed whatever its content type
 * (SNS says text/plain), within the app's body limit. Before the body is read, the receiver is
 * found and its owner's rate limit counts the post, as any write of theirs.
 */
export function evidenceHookRoutes(scope: FastifyInstance, { store, sns = undiciSnsFetcher }: AppConfig, limiter: RateLimiter): void {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  const reach = { certificates: new SnsCertificates(sns), fetcher: sns };
  const sink: EvidenceSink = { evidence: store.evidence, receivers: store.evidenceReceivers };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.decorateRequest('receiver', null);
  app.addHook('onRequest', async (request, reply) => {
    const kind = KIND_OF_ROUTE[request.routeOptions.url ?? ''];
    if (kind === undefined) return;
    const receiver = await receiverOfPost(store.evidenceReceivers, kind, (request.params as { secret: string }).secret);
    const owner = await store.accounts.findUserById(receiver.userId);
    if (!owner) throw new ProblemError('not_found', 'No evidence receiver has this URL.');
    await limiter.admit(owner, reply);
    request.receiver = receiver;
  });

  app.post('/v1/evidence/hooks/sendgrid/:secret', { schema: sendgridHookSchema }, async (request) =>
    takeSendgridPost({ receiver: request.receiver!, headers: request.headers, body: rawBody(request), sink }),
  );
  app.post('/v1/evidence/hooks/sns/:secret', { schema: snsHookSchema }, async (request) =>
    takeSnsPost({ receiver: request.receiver!, body: rawBody(request), sink, sns: reach }),
  );
}
