// A node-fetch response, as the reply reader reads it. The Stainless SDKs
// built before their fetch rewrite (`@anthropic-ai/sdk` below 0.50) call
// node-fetch on Node: its body is a Node stream, and `clone()` pipes that
// stream into two branches. A pipe waits for its slowest branch, so a branch
// read only on demand (or not at all: the reply reader reads web streams)
// holds the caller's branch back once about 32 KiB are buffered, and a long
// reply never reaches the caller. The clone's branch is therefore drained as
// it arrives (in the same ticks as the caller's branch), into a web stream
// the reply reader reads; so the reply is observed, as from a fetch
// Response's tee, before the app's next request reaches the hook.

/** A Node readable stream, as far as draining it goes. */
interface NodeReadable {
  pipe: unknown;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

interface NodeFetchResponse {
  ok: unknown;
  headers: unknown;
  body: unknown;
  clone(): NodeFetchResponse;
}

function isNodeReadable(body: unknown): body is NodeReadable {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.pipe === 'function' && typeof b.on === 'function' && typeof b.getReader !== 'function';
}

/**
 * `response` itself unless its body is a Node stream (a fetch Response, or no
 * response); a node-fetch response is wrapped so that its clone is a
 * Response-like whose body is a web stream fed by the cloned branch as it
 * flows. Never throws.
 */
export function readableByReplyReader(response: unknown): unknown {
  if (typeof response !== 'object' || response === null) return response;
  const r = response as Partial<NodeFetchResponse>;
  try {
    if (typeof r.clone !== 'function' || !isNodeReadable(r.body)) return response;
    const original = r as NodeFetchResponse;
    return {
      ok: original.ok,
      headers: original.headers,
      body: null,
      // Called by the reply reader, which catches what it throws.
      clone() {
        const copy = original.clone();
        return isNodeReadable(copy.body) ? { ok: copy.ok, headers: copy.headers, body: drained(copy.body), clone: () => copy } : copy;
      },
    };
  } catch {
    return response; // a custom fetch's hostile response: the reply reader finds nothing to read in it either
  }
}

/** A web stream of `branch`'s chunks, taken as they flow (so the branch never holds the pipe back). */
function drained(branch: NodeReadable): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      branch.on('data', (chunk: Uint8Array) => {
        if (open) controller.enqueue(chunk);
      });
      // Chunks after a cancel are dropped, and the branch keeps flowing to its end.
      branch.on('end', () => {
        if (open) controller.close();
        open = false;
      });
      branch.on('error', (error: unknown) => {
        if (open) controller.error(error);
        open = false;
      });
    },
    cancel() {
      // The reader stopped (a reply over its bound). Not destroyed: a destroyed branch leaves the pipe waiting for it.
      open = false;
    },
  });
}
