// What the caller of `fetch` gets when strict mode refuses a request at the
// fetch seam: the one place that decides it. The request is never sent.
//
// A Stainless client (`openai`, `@anthropic-ai/sdk`, `groq-sdk`,
// `together-ai`, ... in a copy no client hook patched: a bundle's, a version
// out of range, an SDK with no hook) turns an error thrown from fetch into a
// "Connection error." after retrying it with backoff (its default: three
// attempts in about 1.4 s), so it is answered instead with a response the
// package makes itself, which it reads as a final API error: status 422 (a
// request that is well formed but cannot be processed as it stands; the
// Stainless clients retry only 408, 409, 429 and 5xx) with
// `x-should-retry: false` (which they obey before their status rules), the
// header `x-nous-session-invariant-refused` (the violation's kind: this is
// the package's refusal, not the provider's), and a JSON body whose
// `error.message` (where `openai` takes its message) and top-level `message`
// (where the clients that hand the whole body to their error take it) say
// that this package refused the request and why. The client then throws its
// own status error carrying those words, after one attempt. Any other
// caller gets the violation itself as the rejection of `fetch`.

import { withoutPreviews, type SessionInvariantViolation } from '../../invariant/violation';
import { PACKAGE_NAME } from '../../version';

/** Sent by every Stainless SDK with each request: its requests get the refusal as a response. */
export const STAINLESS_HEADER = 'x-stainless-package-version';

/** The header that marks a refusal as this package's, not the provider's; its value is the violation's kind. */
const REFUSAL_HEADER = 'x-nous-session-invariant-refused';

/** The status of a refusal: unprocessable as it stands, and not retried by any Stainless client. */
const REFUSAL_STATUS = 422;

/** What `fetch` returns for a refused request: a refusal response for a Stainless client, else the violation as its rejection. */
export function refusal(violation: SessionInvariantViolation, stainless: boolean): Promise<Response> {
  if (!stainless) return Promise.reject(violation);
  const message = `${PACKAGE_NAME} refused this request in strict mode; it was not sent to the provider: ${violation.message}`;
  // The violation as the error would carry it, without previews even with content capture on: SDKs log error bodies.
  const details = withoutPreviews(violation.details);
  const body = { error: { type: 'session_invariant_violation', code: details.kind, message, violation: details }, message };
  return Promise.resolve(
    new Response(JSON.stringify(body), {
      status: REFUSAL_STATUS,
      statusText: 'Unprocessable Entity',
      headers: { 'content-type': 'application/json', 'x-should-retry': 'false', [REFUSAL_HEADER]: violation.details.kind },
    }),
  );
}
