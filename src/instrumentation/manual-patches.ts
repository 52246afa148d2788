// The SDK client classes an app handed to `manuallyInstrument`, kept so that
// `disable()` unpatches them and `enable()` patches them again, as the
// require hook's modules are. Whether a class is patched is not recorded
// here: each integration's patch re-wraps the prototype that defines the
// hooked method (`rewrap`), so a class patched again, by hand or by the
// require hook, still carries one wrapper.

import { INTEGRATIONS } from '../integrations/index';
import type { ManualEntry, Patcher } from '../integrations/integration';
import type { ManualModules } from '../integrations/manual-modules';
import { contained } from '../telemetry/internal-error';
import { warnOnce } from '../warnings';

/** The integrations `manuallyInstrument` takes a module for, by key. */
const ENTRIES: ReadonlyMap<string, ManualEntry> = new Map(
  INTEGRATIONS.flatMap((integration) => (integration.manual ? [[integration.manual.key, integration.manual] as const] : [])),
);

const WHERE = 'manuallyInstrument';

export class ManualPatches {
  /** By client class: a class given twice (or by its module and by itself) is one entry. */
  private readonly given = new Map<object, ManualEntry>();

  constructor(private readonly patcher: () => Patcher) {}

  /**
   * Finds the client class each of `modules` holds and keeps it; patches it
   * now if `enabled`. A key that names no hooked SDK, or a value that holds
   * no client class of its SDK, is said once in a warning and left alone.
   */
  add(modules: ManualModules, enabled: boolean): void {
    if (typeof modules !== 'object' || modules === null) {
      warnOnce(
        'manual-argument',
        `${WHERE} takes an object of SDK modules by name ({ ${[...ENTRIES.keys()].join(', ')} }); nothing was patched`,
      );
      return;
    }
    for (const [key, value] of Object.entries(modules) as Array<[string, unknown]>) {
      if (value === undefined) continue;
      const entry = ENTRIES.get(key);
      if (entry === undefined) {
        warnOnce(
          `manual-unknown:${key}`,
          `${WHERE}: ${key} is not one of the SDKs it patches (${[...ENTRIES.keys()].join(', ')}); it is ignored (an SDK that calls fetch needs no entry: the fetch seam checks it)`,
        );
        continue;
      }
      const client =
        (typeof value === 'object' || typeof value === 'function') && value !== null ? this.clientClass(entry, value) : undefined;
      if (client === undefined) {
        warnOnce(
          `manual-not-module:${key}`,
          `${WHERE}: the value given as ${key} is neither the ${entry.module} module nor its client class; it is not patched`,
        );
        continue;
      }
      this.given.set(client, entry);
      if (enabled) this.patch(entry, client);
    }
  }

  /** Patches every class given (again after `disable()`). */
  enable(): void {
    for (const [client, entry] of this.given) this.patch(entry, client);
  }

  /** Unpatches every class given; they stay kept for the next `enable()`. */
  disable(): void {
    for (const [client, entry] of this.given) {
      contained(`${WHERE} (${entry.module})`, () => entry.unpatch(this.patcher(), client), undefined, { consequence: 'it stays patched' });
    }
  }

  private clientClass(entry: ManualEntry, value: object): object | undefined {
    try {
      return entry.clientClass(value);
    } catch {
      return undefined; // a value whose getters throw holds no client class the hook could patch
    }
  }

  private patch(entry: ManualEntry, client: object): void {
    contained(`${WHERE} (${entry.module})`, () => entry.patch(this.patcher(), client), undefined, {
      consequence: 'its requests are not checked',
    });
  }
}
