/**
 * Profiles' provider API keys: sealed at rest, bound to their profile and to the origin they
 * are sent to. Reading a key never falls back to another profile's, and a key is never sent to
 * an origin other than the one it was saved for.
 */
import type { KeyStatus } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { Clock } from '../base/clock.js';
import type { Store } from '../store/repositories.js';
import { SecretOpenFailed, type SecretBox } from './secrets/secretBox.js';

export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

function context(profile: string, origin: string): string {
  return `berth provider key\u0000${profile}\u0000${origin}`;
}

export class ProviderKeys {
  private made: SecretBox | null = null;

  constructor(
    private readonly store: Store,
    /** Called on first use (and again until it succeeds): a broken key file must not stop the app from opening. */
    private readonly makeBox: () => SecretBox,
    private readonly clock: Clock,
  ) {}

  private box(): SecretBox {
    return (this.made ??= this.makeBox());
  }

  status(profile: string): KeyStatus {
    const r = this.store.providerKeys.get(profile);
    return { profile, hasKey: r !== undefined, origin: r?.origin ?? null };
  }

  set(profile: string, baseUrl: string | null, apiKey: string): KeyStatus {
    if (!baseUrl) {
      throw new BerthError('provider_not_configured', `Set the provider URL of profile "${profile}" before saving its API key.`, {
        hint: 'The key is only ever sent to the provider it was saved for.',
      });
    }
    const origin = originOf(baseUrl);
    this.store.providerKeys.set({ profile, origin, ciphertext: this.box().seal(apiKey, context(profile, origin)) }, this.clock.now());
    return this.status(profile);
  }

  clear(profile: string): KeyStatus {
    this.store.providerKeys.delete(profile);
    return this.status(profile);
  }

  /** The key to send to baseUrl for this profile; null when the profile has none (keyless local servers). */
  keyFor(profile: string, baseUrl: string): string | null {
    const r = this.store.providerKeys.get(profile);
    if (!r) return null;
    const origin = originOf(baseUrl);
    if (r.origin !== origin) {
      throw new BerthError('provider_auth', `The API key of profile "${profile}" was saved for ${r.origin}, but the profile now talks to ${origin}. Berth does not send it there.`, {
        hint: 'Save the key again in the profile’s settings if you trust the new provider.',
      });
    }
    try {
      return this.box().open(r.ciphertext, context(profile, r.origin));
    } catch (error) {
      if (!(error instanceof SecretOpenFailed)) throw error;
      throw new BerthError('secret_unavailable', `The saved API key of profile "${profile}" cannot be decrypted here.`, {
        hint: 'It was saved by another installation or with another secret key. Save the key again in the profile’s settings.',
      });
    }
  }
}
