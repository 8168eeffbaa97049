/**
 * Child process: the baseline of the service benchmark, a bare fastify app whose routes do nothing
 * but parse the body and answer JSON of the same size as the real route (the parent sends the real
 * responses' bodies; a long one, `resultsFile`, as a file, sent as read). It answers the parent
 * with its URL and runs until killed.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

process.once('message', async ({ progressBody, verifyBody, resultsFile }) => {
  const app = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024 });
  app.get('/progress', async () => progressBody);
  app.post('/verify', async () => verifyBody);
  app.post('/bulk', async (request) => ({ jobId: progressBody.job_id, queued: request.body.emails.length }));
  if (resultsFile) {
    const results = readFileSync(resultsFile);
    app.get('/results', async (request, reply) => reply.type('application/json; charset=utf-8').send(results));
  }
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.send({ url });
});
