/**
 * The profile's Image field: free text (any image a registry has), offering the engine's local
 * images and Berth's own base image, which works offline.
 */
import { useEffect, useId, useState } from 'react';
import { useServices } from '../../services/context';

export function ImageField({ value, onChange }: { value: string; onChange(value: string): void }) {
  const { api } = useServices();
  const listId = useId();
  const [images, setImages] = useState<string[]>([]);
  const [baseImage, setBaseImage] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.call('engine.images', {}).then(
      (r) => {
        if (!live) return;
        setImages(r.images);
        setBaseImage(r.baseImage);
      },
      // The engine is down: the status bar says so; the field still takes any name.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api]);

  const offered = baseImage === null || images.includes(baseImage) ? images : [baseImage, ...images];
  return (
    <>
      <input value={value} onChange={(e) => onChange(e.target.value)} spellCheck={false} list={listId} autoComplete="off" />
      <datalist id={listId}>
        {offered.map((image) => (
          <option key={image} value={image}>
            {image === baseImage ? "Berth's base image (built on first use, works offline)" : 'on this computer'}
          </option>
        ))}
      </datalist>
    </>
  );
}
