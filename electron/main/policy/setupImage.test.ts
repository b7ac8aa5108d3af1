import { describe, expect, it } from 'vitest';
import { PREPARED_KEY_LABEL, preparedTag, setupKey, setupNetwork, setupRecipe } from './setupImage.js';

describe('prepared images of a setup command', () => {
  it('are keyed by image id and command: the same pair the same key, any change another', () => {
    const k = setupKey('sha256:a', 'apt-get install -y nodejs');
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(setupKey('sha256:a', 'apt-get install -y nodejs')).toBe(k);
    expect(setupKey('sha256:b', 'apt-get install -y nodejs')).not.toBe(k);
    expect(setupKey('sha256:a', 'apt-get install -y nodejs ')).not.toBe(k);
    expect(preparedTag(k)).toBe(`berth-prepared:${k.slice(0, 24)}`);
  });

  it('build FROM the image id as root, the command as one exec-form argument, labelled with the key', () => {
    const recipe = setupRecipe('sha256:a', 'echo "x" && touch /y', 'k1');
    expect(recipe.split('\n')).toEqual(['FROM sha256:a', 'USER root', 'RUN ["/bin/sh","-c","echo \\"x\\" && touch /y"]', `LABEL berth.app="berth" ${PREPARED_KEY_LABEL}="k1"`, '']);
  });

  it("get the profile's egress as their network: none for none, the profile's bridge for open, a sealed network with its proxy for allowlist", () => {
    expect(setupNetwork('none')).toBe('none');
    expect(setupNetwork('allowlist')).toBe('sealed');
    expect(setupNetwork('open')).toBe('bridge');
  });
});
