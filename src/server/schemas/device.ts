import {
  deviceAuthorizationRequestSchema,
  deviceAuthorizationSchema,
  deviceTokenRequestSchema,
  deviceTokenSchema,
  oauthErrorSchema,
} from '../../wire/contract.js';
import { errorResponses, problemSchema } from './problem.js';

export const deviceAuthorizationRouteSchema = {
  summary: 'Start logging in a device (RFC 8628): codes to approve on the dashboard and to poll with',
  body: deviceAuthorizationRequestSchema,
  bodyOptional: true,
  response: {
    200: deviceAuthorizationSchema,
    ...errorResponses('invalid_request', 'payload_too_large', 'unsupported_media_type', 'rate_limited'),
  },
} as const;

export const deviceTokenRouteSchema = {
  summary: "Poll for a device's token (RFC 8628 §3.4); JSON or a form. Errors are OAuth's JSON, not problem+json",
  body: deviceTokenRequestSchema,
  mediaTypes: { body: ['application/json', 'application/x-www-form-urlencoded'], response: { '400': ['application/json', 'application/problem+json'] } },
  response: {
    200: deviceTokenSchema,
    // A body that is not JSON or a form at all is refused before the route reads it: problem+json, as anywhere.
    400: { anyOf: [oauthErrorSchema, problemSchema] },
    ...errorResponses('payload_too_large', 'unsupported_media_type'),
  },
} as const;
