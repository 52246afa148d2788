// Placeholder until the implicit conversation log lands.
import type { InvariantInstruments } from '../../telemetry/instruments';
import type { CheckReaction } from '../../invariant/verify';
import type { ImplicitLogOptions } from '../host';
import type { ModelRequest } from '../model-request';
import type { PendingReply } from '../check-request';

export interface ImplicitLogs {
  check(request: ModelRequest, reaction: CheckReaction): PendingReply | undefined;
}

export function implicitLogs(_options: ImplicitLogOptions | undefined, _instruments: InvariantInstruments): ImplicitLogs | undefined {
  return undefined;
}
