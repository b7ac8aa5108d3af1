/** Images Berth prepares in the background (its full default image, the egress proxy, setup commands): the status bar's items. */
import { z } from 'zod';

export const ImagePreparation = z.object({
  /** 'default', 'egress', or 'setup:<profile>'. */
  id: z.string(),
  label: z.string(),
  state: z.enum(['preparing', 'ready', 'failed']),
  message: z.string(),
  fraction: z.number().min(0).max(1).nullable(),
});
export type ImagePreparation = z.infer<typeof ImagePreparation>;

export const ImagePreparations = z.object({ preparations: z.array(ImagePreparation) });
export type ImagePreparations = z.infer<typeof ImagePreparations>;
