/** The status bar's calls to main: components call these, never the API. */
import type { BerthApi } from '../../api/types';
import type { ImagePreparation } from '../../../shared/imagePreparation';

export function statusActions(api: BerthApi) {
  return {
    /** The images Berth prepares, now and as they change; returns the unsubscribe. */
    watchPreparations(on: (items: ImagePreparation[]) => void): () => void {
      let live = true;
      const off = api.on('images.status', ({ preparations }) => on(preparations));
      api.call('images.status', {}).then(
        ({ preparations }) => live && on(preparations),
        () => undefined,
      );
      return () => {
        live = false;
        off();
      };
    },
  };
}
