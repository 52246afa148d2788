// What a model provider gives the package: one entry of the registry in
// providers.ts, defined in the provider's folder (`provider.ts`).

import type { ModelRequest, SerialisedHead } from '../request-path/model-request';
import type { Integration } from './integration';
import type { ManualModuleKey } from './manual-modules';
import type { RequestOptions } from './sdk-client/request-options';
import type { WireFormat } from './wire-format';

/**
 * The SDK client a provider's requests are checked at first (a
 * Stainless-generated client with `prepareOptions`): its module, the tested
 * versions, where its client class is, and which request options are model
 * requests. The client hook (sdk-client/client-hook.ts) is built from it.
 */
export interface ClientSeam {
  /** The npm package. */
  module: string;
  /** Its key in `manuallyInstrument`'s argument. */
  manualKey: ManualModuleKey;
  /** The versions whose client has this seam with these semantics (tested). */
  range: string;
  /** The client class from the module's exports. */
  clientOf(exports: Record<string, unknown>): unknown;
  /** The model request these options are, if they are one. */
  modelRequest(options: RequestOptions | undefined): ModelRequest | undefined;
  /** These options' request as its serialised body, when the implicit log may read it by its bytes. */
  serialised(options: RequestOptions | undefined, text: string): SerialisedHead | undefined;
  /** Where the client hands over the serialised body with a throw reaching the caller as it is (sdk-client/client-hook.ts). */
  byteSeam: 'prepareRequest' | 'backendMiddleware';
}

/** One model provider: its SDK client hook, if it has one, and its APIs as the transport seams read them. */
export interface Provider {
  /** Shown in tests and docs. */
  readonly name: string;
  /**
   * The SDK whose client hook checks this provider's requests; the fetch
   * seam leaves the requests of a hooked client to it (request-path/call-scope.ts).
   * None for a provider checked at the fetch seam only.
   */
  readonly client?: ClientSeam;
  /**
   * A hook of its own, for an SDK that neither calls `globalThis.fetch` nor
   * has the Stainless seam (`client`): the AWS SDK's middleware stack, say.
   * The instrumentation enables it with the other integrations (index.ts).
   */
  readonly hook?: Integration;
  /** Its APIs; their paths overlap no other's. */
  readonly wireFormats: readonly WireFormat[];
}
